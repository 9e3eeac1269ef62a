package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReaderRoutes checks that the binary routes the reader endpoints
// (/_/addons/, footer_html, the client) on the public host to the docs
// host, with the reader settings applied.
func TestReaderRoutes(t *testing.T) {
	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, []string{"--data-dir", t.TempDir(), "--addons-client-url", "/static/rtd.js"}); err != nil {
		t.Fatal(err)
	}
	if !c.settings.AddonsInject || c.settings.AddonsClientURL != "/static/rtd.js" {
		t.Fatalf("settings: inject %v, client %q", c.settings.AddonsInject, c.settings.AddonsClientURL)
	}
	a, err := c.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	srv := httptest.NewServer(a.handler())
	defer srv.Close()
	for _, tc := range []struct {
		path   string
		status int
		prefix string
	}{
		{"/_/addons/?api-version=1", 400, `{"error":"'project-slug' and 'version-slug'`},
		{"/_/addons/?api-version=1&project-slug=nope&version-slug=latest", 404, `{"detail":"No Project matches the given query."}`},
		{"/api/v2/footer_html/?project=nope&version=latest", 404, `{"detail":"Not found."}`},
		{"/_/api/v2/footer_html/?project=nope", 404, `{"detail":"Not found."}`},
		{"/_/static/docsd-addons.js", 200, "// docsd's reader client"},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.HasPrefix(string(b), tc.prefix) {
			t.Errorf("GET %s: %d %.80s, want %d %s", tc.path, resp.StatusCode, b, tc.status, tc.prefix)
		}
	}

	c = &command{stdout: io.Discard, stderr: io.Discard}
	fs, env = c.flags("serve", "serve")
	if _, err := c.parse(fs, env, []string{"--data-dir", t.TempDir(), "--addons-client-url", "javascript:alert(1)"}); err == nil {
		t.Errorf("a client URL that is neither absolute URL nor absolute path was accepted")
	}
}
