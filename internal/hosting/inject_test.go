package hosting

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"docsd/store"
)

// injectFixture is a fixture whose docs hosts inject the built-in client
// (path mode) or an operator's client (subdomain mode).
func injectFixture(t *testing.T) *fixture {
	f := newFixture(t, store.SQLite)
	f.path = New(f.s, f.arts, Config{URLs: pathURLs, AddonsInject: true}, nil)
	f.sub = New(f.s, f.arts, Config{URLs: subURLs, AddonsInject: true, AddonsClientURL: "https://cdn.example.org/readthedocs-addons/0.49.0/readthedocs-addons.js?a=1&b=2"}, nil)
	return f
}

func wantBlock(project, version, filename, status, src string) string {
	return `<meta name="readthedocs-project-slug" content="` + project + "\">\n" +
		`<meta name="readthedocs-version-slug" content="` + version + "\">\n" +
		`<meta name="readthedocs-resolver-filename" content="` + filename + "\">\n" +
		`<meta name="readthedocs-http-status" content="` + status + "\">\n" +
		`<script defer src="` + src + "\"></script>\n"
}

// mkdocsBaseURL is how MkDocs' two themes hand their scripts the site's
// root, which search/main.js loads search/worker.js from: the mkdocs
// theme's (with the keyboard shortcuts after it) and readthedocs'.
func mkdocsBaseURL(root string) string {
	return "<script>\n    var base_url = \"" + root + "\",\n        shortcuts = {\"search\": 83};\n</script>" +
		"<script>var base_url = '" + root + "';</script>"
}

// TestInjection checks the injection of the reader client: where the
// block goes, byte for byte, and which files are left alone.
func TestInjection(t *testing.T) {
	f := injectFixture(t)
	demo := f.project("demo", "en")
	big := "<html><head></head><body>" + strings.Repeat("x", 8<<20) + "</body></html>"
	binary := "\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00</\x00head>"
	f.publish(demo, "latest", map[string]string{
		"index.html":           "<!DOCTYPE html><html><HEAD><title>t</title></HEAD ><body>hi</body></html>",
		"guide/index.html":     "<html><head>\n</head>\n<body>guide</body></html>",
		"body-only.html":       "<p>x</p><BODY class=a>text",
		"no-point.html":        "<p>no head or body here</p><bodyx>",
		"headless.html":        "<html><header>not a head</header><body/>y",
		"big.html":             big,
		"utf16.html":           binary,
		"style.css":            "body { }</head>",
		"caf\u00e9 & co<.html": "<head></head>",
		"404.html": `<html><head><link href="css/theme.css" rel="stylesheet"><link href="/css/x.css"></head><body><a href="#top">t</a><img src="https://cdn.example/a.png"><a href="../up/">u</a>` +
			mkdocsBaseURL("/") + `</body></html>`,
	})
	src := "/_/static/docsd-addons.js?v=" + clientHash
	cases := []struct {
		name, url, want string
		status          int
	}{
		{"before </HEAD >", "/docs/demo/en/latest/", "<!DOCTYPE html><html><HEAD><title>t</title>" + wantBlock("demo", "latest", "/index.html", "200", src) + "</HEAD ><body>hi</body></html>", 200},
		{"directory index", "/docs/demo/en/latest/guide/", "<html><head>\n" + wantBlock("demo", "latest", "/guide/index.html", "200", src) + "</head>\n<body>guide</body></html>", 200},
		{"after <body>", "/docs/demo/en/latest/body-only.html", "<p>x</p><BODY class=a>" + wantBlock("demo", "latest", "/body-only.html", "200", src) + "text", 200},
		{"no insertion point", "/docs/demo/en/latest/no-point.html", "<p>no head or body here</p><bodyx>", 200},
		{"<header> is no head", "/docs/demo/en/latest/headless.html", "<html><header>not a head</header><body/>" + wantBlock("demo", "latest", "/headless.html", "200", src) + "y", 200},
		{"over 8 MiB", "/docs/demo/en/latest/big.html", big, 200},
		{"UTF-16", "/docs/demo/en/latest/utf16.html", binary, 200},
		{"not HTML", "/docs/demo/en/latest/style.css", "body { }</head>", 200},
		{"escaped file name", "/docs/demo/en/latest/caf%C3%A9%20&%20co%3C.html", "<head>" + wantBlock("demo", "latest", "/caf%C3%A9%20&amp;%20co%3C.html", "200", src) + "</head>", 200},
		{"custom 404, links rebased", "/docs/demo/en/latest/a/b/missing.html",
			`<html><head><link href="/docs/demo/en/latest/css/theme.css" rel="stylesheet"><link href="/docs/demo/en/latest/css/x.css">` +
				wantBlock("demo", "latest", "/a/b/missing.html", "404", src) +
				`</head><body><a href="#top">t</a><img src="https://cdn.example/a.png"><a href="/docs/demo/en/up/">u</a>` +
				mkdocsBaseURL("/docs/demo/en/latest/") + `</body></html>`, 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.get("https://docs.example.com" + tc.url)
			got := body(t, resp)
			if resp.StatusCode != tc.status || got != tc.want {
				t.Errorf("got %d %.400q\nwant %d %.400q", resp.StatusCode, got, tc.status, tc.want)
			}
			if cl := resp.Header.Get("Content-Length"); cl != "" && cl != itoa(len(got)) {
				t.Errorf("Content-Length %s, body %d bytes", cl, len(got))
			}
		})
	}

	t.Run("operator's client, subdomain mode", func(t *testing.T) {
		resp := f.get("https://demo.docs.example.io/en/latest/guide/")
		want := "<html><head>\n" + wantBlock("demo", "latest", "/guide/index.html", "200",
			"https://cdn.example.org/readthedocs-addons/0.49.0/readthedocs-addons.js?a=1&amp;b=2") + "</head>\n<body>guide</body></html>"
		if got := body(t, resp); got != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
	})

	t.Run("validators, ranges and gzip", func(t *testing.T) {
		url := "https://docs.example.com/docs/demo/en/latest/guide/"
		plain := f.get(url)
		doc := body(t, plain)
		etag := plain.Header.Get("ETag")
		if !strings.Contains(etag, "-a") || !strings.HasSuffix(etag, `"`) {
			t.Fatalf("ETag %q lacks the block's hash", etag)
		}
		head := f.do(http.MethodHead, url)
		if head.Header.Get("ETag") != etag || head.Header.Get("Content-Length") != itoa(len(doc)) || body(t, head) != "" {
			t.Errorf("HEAD: ETag %q, Content-Length %q", head.Header.Get("ETag"), head.Header.Get("Content-Length"))
		}
		if r := f.get(url, "If-None-Match", etag); r.StatusCode != 304 {
			t.Errorf("If-None-Match: %d", r.StatusCode)
		}
		r := f.get(url, "Range", "bytes=0-5")
		if got := body(t, r); r.StatusCode != 206 || got != doc[:6] {
			t.Errorf("Range: %d %q", r.StatusCode, got)
		}
		// The operator's client changes the tag.
		if other := f.get("https://demo.docs.example.io/en/latest/guide/"); other.Header.Get("ETag") == etag {
			t.Errorf("same ETag for another client")
		}
		f.publish(demo, "1.0", map[string]string{"index.html": "<html><head></head><body>" + strings.Repeat("gzip me ", 200) + "</body></html>"})
		gz := f.get("https://docs.example.com/docs/demo/en/1.0/", "Accept-Encoding", "gzip")
		if gz.Header.Get("Content-Encoding") != "gzip" || !strings.HasSuffix(gz.Header.Get("ETag"), `-gzip"`) || !strings.Contains(gz.Header.Get("ETag"), "-a") {
			t.Fatalf("gzip: %q %q", gz.Header.Get("Content-Encoding"), gz.Header.Get("ETag"))
		}
		zr, err := gzip.NewReader(bytes.NewReader([]byte(body(t, gz))))
		if err != nil {
			t.Fatal(err)
		}
		unz, _ := io.ReadAll(zr)
		if !strings.Contains(string(unz), wantBlock("demo", "1.0", "/index.html", "200", src)+"</head>") {
			t.Errorf("gzipped page lacks the block: %.200q", unz)
		}
	})

	t.Run("turned off", func(t *testing.T) {
		off := false
		f.update(demo, store.ProjectUpdate{AddonsEnabled: &off})
		defer func() {
			on := true
			f.update(demo, store.ProjectUpdate{AddonsEnabled: &on})
		}()
		if got := body(t, f.get("https://docs.example.com/docs/demo/en/latest/guide/")); got != "<html><head>\n</head>\n<body>guide</body></html>" {
			t.Errorf("addons_enabled=false: %q", got)
		}
		plain := New(f.s, f.arts, Config{URLs: pathURLs}, nil)
		on := true
		f.update(demo, store.ProjectUpdate{AddonsEnabled: &on})
		w := httptestGet(plain, "https://docs.example.com/docs/demo/en/latest/guide/")
		if w != "<html><head>\n</head>\n<body>guide</body></html>" {
			t.Errorf("addons_inject=false: %q", w)
		}
	})
}

// TestClientScript checks how /_/static/docsd-addons.js is served.
func TestClientScript(t *testing.T) {
	f := injectFixture(t)
	if len(clientJS) > 60<<10 {
		t.Errorf("client is %d bytes, more than 60 KiB", len(clientJS))
	}
	for _, bad := range []string{"eval(", "new Function", "http://", "https://"} {
		if strings.Contains(string(clientJS), bad) {
			t.Errorf("client contains %q", bad)
		}
	}
	resp := f.get("https://docs.example.com/_/static/docsd-addons.js?v=" + clientHash)
	if got := body(t, resp); resp.StatusCode != 200 || got != string(clientJS) ||
		resp.Header.Get("Content-Type") != "application/javascript" ||
		resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || resp.Header.Get("ETag") == "" {
		t.Errorf("versioned: %d %v", resp.StatusCode, resp.Header)
	}
	resp = f.get("https://demo.docs.example.io/_/static/docsd-addons.js?v=old")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("other v, docs subdomain: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	if resp := f.do(http.MethodPost, "https://docs.example.com/_/static/docsd-addons.js"); resp.StatusCode != 405 {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	if resp := f.get("https://docs.example.com/_/static/docsd-addons.js/"); resp.StatusCode != 404 {
		t.Errorf("with a slash: %d, want 404", resp.StatusCode)
	}
}

func httptestGet(h http.Handler, url string) string {
	w := &recorder{header: http.Header{}}
	r, _ := http.NewRequest(http.MethodGet, url, nil)
	h.ServeHTTP(w, r)
	return w.body.String()
}

type recorder struct {
	header http.Header
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(int)             {}
