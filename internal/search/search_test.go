package search_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"docsd/internal/artifacts"
	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestParsePageSphinxExample(t *testing.T) {
	p, err := search.ParsePage(strings.NewReader(installHTML), "install.html")
	must(t, err)
	want := &search.Page{Title: "Install", Sections: []search.Section{
		{ID: "install", Title: "Install", Content: "Run pip install demo to install the latest release."},
		{ID: "from-source", Title: "From source", Content: "$ pip install -e ."},
	}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("ParsePage = %+v, want %+v", p, want)
	}
}

func TestParsePageRules(t *testing.T) {
	doc := `<html><head><title>T</title><script>x()</script></head><body>
<header><h1>Outside</h1></header>
<article role="main"><p>Lead <b>text</b> here.</p>
<dl class="py function"><dt id="demo.run">demo.run(x)</dt><dd><p>Runs x.</p>
  <dl><dt id="demo.run.inner">inner</dt><dd>Nested.</dd></dl></dd></dl>
<h2>No id</h2><p>Body of h2</p><nav>skip me</nav><div role="search">skip</div>
<div><h3 id="deep">Deep</h3><p>Deep text.</p></div>
</article></body></html>`
	p, err := search.ParsePage(strings.NewReader(doc), "api.html")
	must(t, err)
	want := &search.Page{Title: "T", Sections: []search.Section{
		{ID: "demo.run", Title: "demo.run(x)", Content: "Runs x."},
		{ID: "demo.run.inner", Title: "inner", Content: "Nested."},
		{ID: "", Title: "T", Content: "Lead text here."},
		{ID: "", Title: "No id", Content: "Body of h2"},
		{ID: "deep", Title: "Deep", Content: "Deep text."},
	}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("ParsePage =\n%+v\nwant\n%+v", p, want)
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct {
		in    string
		text  string
		args  []search.Arg
		terms []search.Term
	}{
		{"subprojects:demo/latest install", "install", []search.Arg{{Name: "subprojects", Value: "demo/latest"}}, []search.Term{{Words: []string{"install"}, Prefix: true}}},
		{`"config file" -draft +Sphinx inst* conf.py a\:b fuzzy~2 (x|y)`, `"config file" -draft +Sphinx inst* conf.py a:b fuzzy~2 (x|y)`, nil, []search.Term{
			{Words: []string{"config", "file"}}, {Words: []string{"draft"}, Mode: search.MustNot},
			{Words: []string{"sphinx"}, Mode: search.Must}, {Words: []string{"inst"}, Prefix: true},
			{Words: []string{"conf", "py"}}, {Words: []string{"a", "b"}}, {Words: []string{"fuzzy"}},
			{Words: []string{"x"}}, {Words: []string{"y"}},
		}},
		{`"unbalanced quote`, `"unbalanced quote`, nil, []search.Term{{Words: []string{"unbalanced", "quote"}}}},
		{"Ünïcödé ÉCOLE", "Ünïcödé ÉCOLE", nil, []search.Term{{Words: []string{"unicode"}}, {Words: []string{"ecole"}, Prefix: true}}},
		{"asyncio gat", "asyncio gat", nil, []search.Term{{Words: []string{"asyncio"}}, {Words: []string{"gat"}, Prefix: true}}},
		{"os.p", "os.p", nil, []search.Term{{Words: []string{"os", "p"}}}},
		{"os.pat", "os.pat", nil, []search.Term{{Words: []string{"os", "pat"}, Prefix: true}}},
		{`"exact phrase"`, `"exact phrase"`, nil, []search.Term{{Words: []string{"exact", "phrase"}}}},
		{"keep -out", "keep -out", nil, []search.Term{{Words: []string{"keep"}}, {Words: []string{"out"}, Mode: search.MustNot}}},
		{`*** - + "" ~ AND OR NEAR( ) \x00`, `*** - + "" ~ AND OR NEAR( ) \x00`, nil, []search.Term{{Words: []string{"and"}}, {Words: []string{"or"}}, {Words: []string{"near"}}, {Words: []string{"x00"}, Prefix: true}}},
		{"user:@me project:demo", "", []search.Arg{{Name: "user", Value: "@me"}, {Name: "project", Value: "demo"}}, nil},
	}
	for _, tt := range tests {
		q := search.ParseQuery(tt.in)
		if q.Text != tt.text || !reflect.DeepEqual(q.Args, tt.args) || !reflect.DeepEqual(q.Terms, tt.terms) {
			t.Errorf("ParseQuery(%q) = %q %+v %+v, want %q %+v %+v", tt.in, q.Text, q.Args, q.Terms, tt.text, tt.args, tt.terms)
		}
	}
}

// TestSearchWorkedExample: a search of a project and its subprojects, with
// titles, blocks and highlights, on both databases.
func TestSearchWorkedExample(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		scope, res := w.run(t.Context(), t, search.Reader{}, "subprojects:demo/latest install", 0, 15)
		if got := describeScope(scope); got != "demo/latest lib/latest" {
			t.Errorf("scope = %q", got)
		}
		got := describe(res)
		want := `count 2
demo/latest install.html https://docs.example.com/docs/demo/en/latest/install.html alias=""
  title ["<span>Install</span>"]
  block install ["<span>Install</span>"] ["Run pip <span>install</span> demo to <span>install</span> the latest release."]
  block from-source [] ["$ pip <span>install</span> -e ."]
lib/latest usage.html https://docs.example.com/docs/demo/projects/library/en/latest/usage.html alias="library"
  title []
  block install-lib ["<span>Install</span> lib"] ["The library ships with demo; nothing else to <span>install</span>."]
`
		if got != want {
			t.Errorf("results:\n%s\nwant:\n%s", got, want)
		}
	})
}

// TestSearchVisibility: private versions are searched only for their
// maintainers; a query without arguments searches nothing.
func TestSearchVisibility(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		ctx := t.Context()
		stranger, _ := storetest.MustUser(t, w.s, "mallory")
		for _, tc := range []struct {
			name   string
			reader search.Reader
			q      string
			want   int
		}{
			{"anonymous", search.Reader{}, "project:demo/internal-notes secret", 0},
			{"stranger", search.Reader{UserID: stranger.ID}, "project:demo/internal-notes secret", 0},
			{"maintainer", search.Reader{UserID: w.maintainer.ID}, "project:demo/internal-notes secret", 1},
			{"no argument", search.Reader{UserID: w.maintainer.ID}, "secret", 0},
			{"user:@me anonymous", search.Reader{}, "user:@me install", 0},
			{"user:@me", search.Reader{UserID: w.maintainer.ID}, "user:@me install", 2},
		} {
			_, res := w.run(ctx, t, tc.reader, tc.q, 0, 15)
			if res.Count != tc.want || len(res.Hits) != tc.want {
				t.Errorf("%s: %q count %d (%d hits), want %d", tc.name, tc.q, res.Count, len(res.Hits), tc.want)
			}
		}
	})
}

// TestSearchBadInput: queries of any size and syntax answer, never fail.
func TestSearchBadInput(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		long := strings.Repeat("install \"quote (paren* -x +y NEAR/3 ", 300)
		for _, q := range []string{
			`project:demo "install`, `project:demo install"`, "project:demo \x00install\x00", "project:demo " + long,
			`project:demo AND OR NOT`, `project:demo '; DROP TABLE projects; --`, `project:demo install:* ^ {a b} NEAR(a b)`,
			"project:demo \xff\xfe invalid utf8", "project:demo -install", "project:demo ***", `project:demo \:`,
			"project:" + strings.Repeat("x", 10000), "subprojects:/", "project:demo/" + strings.Repeat("\x00", 5),
		} {
			query := search.ParseQuery(q)
			scope, err := w.svc.Scope(t.Context(), search.Reader{}, query.Args)
			if err != nil {
				t.Errorf("Scope(%.40q): %v", q, err)
				continue
			}
			if _, err := w.svc.Search(t.Context(), query, scope, 0, 15); err != nil {
				t.Errorf("Search(%.40q): %v", q, err)
			}
		}
	})
}

// TestSearchIndexLifecycle: replacing a version's entries leaves only the
// new ones, and deleting the version deletes them (FTS rows included).
func TestSearchIndexLifecycle(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		ctx := t.Context()
		w.index(t, "demo/latest", map[string]string{"other.html": `<main><h1>Other</h1><p>Nothing here.</p></main>`})
		if _, res := w.run(ctx, t, search.Reader{}, "project:demo install", 0, 15); res.Count != 0 {
			t.Errorf("after reindex: count %d, want 0", res.Count)
		}
		if _, res := w.run(ctx, t, search.Reader{}, "project:demo nothing", 0, 15); res.Count != 1 {
			t.Errorf("after reindex: new page count %d, want 1", res.Count)
		}
		lib := w.versions["lib/latest"]
		must(t, w.s.DeleteVersion(ctx, lib.ID))
		if n, err := w.s.CountSearchPages(ctx, lib.ID); err != nil || n != 0 {
			t.Errorf("pages of a deleted version: %d, %v", n, err)
		}
		if words, err := w.s.FindSearchWords(ctx, []int64{lib.ID}, "install"); err != nil || len(words) != 0 {
			t.Errorf("dictionary words after delete: %v, %v", words, err)
		}
		if ps, err := w.s.FindTopPostings(ctx, []int64{lib.ID}, []string{"install"}, 10); err != nil || len(ps) != 0 {
			t.Errorf("postings after delete: %v, %v", ps, err)
		}
		if d == store.SQLite {
			// The FTS rows went with the sections.
			ids, err := w.s.FindSearchCandidates(ctx, []int64{lib.ID}, []store.SearchTerm{{Words: []string{"install"}}}, nil)
			if err != nil || len(ids) != 0 {
				t.Errorf("candidates after delete: %v, %v", ids, err)
			}
		}
	})
}

// TestSearchSameOnBothEngines runs one corpus and a list of queries on
// both databases: the results (matches, order, highlights) are the same,
// and match the golden file.
func TestSearchSameOnBothEngines(t *testing.T) {
	out := map[store.Dialect]string{}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		w.index(t, "demo/v1.0", corpus())
		var b strings.Builder
		for _, q := range corpusQueries {
			_, res := w.run(t.Context(), t, search.Reader{}, "project:demo/v1.0 "+q, 0, 30)
			fmt.Fprintf(&b, "== %s\n%s", q, describe(res))
		}
		out[d] = b.String()
		golden := filepath.Join("testdata", "corpus.golden")
		if *update && d == store.SQLite {
			must(t, os.WriteFile(golden, []byte(out[d]), 0o644))
		}
		want, err := os.ReadFile(golden)
		must(t, err)
		if out[d] != string(want) {
			t.Errorf("results differ from %s (run with -update and review the diff):\n%s", golden, out[d])
		}
	})
	if len(out) == 2 && out[store.SQLite] != out[store.Postgres] {
		t.Errorf("SQLite and PostgreSQL disagree")
	}
}

var corpusQueries = []string{
	"install", "install configuration", `"config file"`, "conf.py", "config*", "+sphinx theme",
	"theme -dark", "INSTALLATION", "cafe", "naïve", "autodoc", "sphinx.ext.autodoc", `"file config"`,
	"zzz", "-theme", "1.0", "日本語", "theme~2", "(extension | plugin)",
	"okapioneinst", "okapioneinstall", "installing", "demo.gather", "gather", "gat", "gathering -okapioneinstall",
}

// corpus is a small documentation set exercising ranking, phrases,
// prefixes, exclusions, diacritics and long content.
func corpus() map[string]string {
	long := strings.Repeat("Filler words about nothing in particular. ", 10) + "Here the theme option finally appears, then more text follows the theme. " + strings.Repeat("Trailing filler. ", 10)
	return map[string]string{
		"index.html":        `<main><h1>Demo documentation</h1><p>Welcome. See install and configuration.</p></main>`,
		"install.html":      `<main><h1>Installation</h1><p>To install, run pip. The install takes a minute.</p><h2 id="cfg">Configuration</h2><p>Edit the config file conf.py after you install.</p></main>`,
		"config.html":       `<main><h1>Configuration</h1><p>The config file is conf.py. A file config is not a config file.</p><h2 id="ext">Extensions</h2><p>Enable sphinx.ext.autodoc as an extension.</p></main>`,
		"themes/dark.html":  `<main><h1>Dark theme</h1><p>The dark theme for Sphinx.</p></main>`,
		"themes/light.html": `<main><h1>Light theme</h1><p>The light theme for Sphinx. ` + long + `</p></main>`,
		"cafe.html":         `<main><h1>Café naïve</h1><p>Diacritics: café, NAÏVE, résumé. 日本語 text. Version 1.0 notes; plugin list.</p></main>`,
		"search.html":       `<main><h1>Search</h1><p>install theme config</p></main>`,
		"api.html": `<main><h1>API</h1><dl class="py function"><dt class="sig sig-object py" id="demo.gather">demo.gather(*aws)</dt>
<dd><p>Runs the awaitables.</p></dd></dl><h2 id="okapi">Okapi</h2><p>Run okapioneinstall once.</p></main>`,
		"gathering.html": `<main><h1>Gathering</h1><p>` + strings.Repeat("The demo gathers; gather the demo. ", 5) + `</p></main>`,
	}
}

func describeScope(pairs []*search.Pair) string {
	var parts []string
	for _, p := range pairs {
		parts = append(parts, p.Project.Slug+"/"+p.Version.Slug)
	}
	return strings.Join(parts, " ")
}

// describe renders results as text for comparisons.
func describe(res *search.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "count %d\n", res.Count)
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "%s/%s %s %s alias=%q\n  title %s\n", h.Pair.Project.Slug, h.Pair.Version.Slug, h.StoredPath, h.URL, h.Pair.Alias(), quoteList(h.TitleHighlights))
		for _, bl := range h.Blocks {
			fmt.Fprintf(&b, "  block %s %s %s\n", bl.ID, quoteList(bl.TitleHighlights), quoteList(bl.ContentHighlights))
		}
	}
	return b.String()
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// TestSearchHugePage indexes a page near the limits (a 1 MiB section of
// distinct long words, 10,000+ headings) on both databases.
func TestSearchHugePage(t *testing.T) {
	var b strings.Builder
	b.WriteString("<main><h1>Huge</h1><p>")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "word%d%s ", i, strings.Repeat("x", i%600))
	}
	b.WriteString("</p>")
	for i := 0; i < 10050; i++ {
		fmt.Fprintf(&b, "<h2>h%d</h2>", i)
	}
	b.WriteString("</main>")
	p, err := search.ParsePage(strings.NewReader(b.String()), "huge.html")
	must(t, err)
	if len(p.Sections) != 10000 {
		t.Errorf("sections: %d, want 10000", len(p.Sections))
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		w.index(t, "demo/v1.0", map[string]string{"huge.html": b.String()})
		if _, res := w.run(t.Context(), t, search.Reader{}, "project:demo/v1.0 word0", 0, 15); res.Count != 1 {
			t.Errorf("count %d, want 1", res.Count)
		}
	})
}

// TestIndexerPublished: the publish hook indexes the published tree with
// the build's search settings; when the tree can't be read, the version's
// old entries are deleted and nothing fails.
func TestIndexerPublished(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		ctx := t.Context()
		arts, err := artifacts.NewLocal(t.TempDir())
		must(t, err)
		ix := &search.Indexer{Store: w.s, Trees: arts}
		dir := t.TempDir()
		for name, doc := range map[string]string{"index.html": `<main><h1>Home</h1><p>Welcome home.</p></main>`,
			"search.html": `<main><h1>Search</h1><p>home</p></main>`, "skip/me.html": `<main><h1>Home skip</h1></main>`, "notes.txt": "home"} {
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644))
		}
		must(t, arts.PublishHTML(ctx, "demo", "latest", dir))
		v := w.versions["demo/latest"]
		ix.Published(ctx, w.demo, v, `{"doctype": "mkdocs", "search": {"ignore": ["skip/*", "search.html"], "ranking": {}}}`)
		_, res := w.run(ctx, t, search.Reader{}, "project:demo home", 0, 15)
		if res.Count != 1 || res.Hits[0].StoredPath != "index.html" || res.Hits[0].Doctype != "mkdocs" || !strings.HasSuffix(res.Hits[0].URL, "/latest/") {
			t.Errorf("after publish: %s", describe(res))
		}
		// v1.0 has no published tree: its entries go.
		w.index(t, "demo/v1.0", map[string]string{"a.html": `<main><h1>Home</h1></main>`})
		ix.Published(ctx, w.demo, w.versions["demo/v1.0"], `{}`)
		if n, err := w.s.CountSearchPages(ctx, w.versions["demo/v1.0"].ID); err != nil || n != 0 {
			t.Errorf("entries after a failed indexing: %d, %v", n, err)
		}
	})
}

// TestSearchSuperuserGetsNothingExtra: readers' visibility gives
// superusers no private content they don't maintain.
func TestSearchSuperuserGetsNothingExtra(t *testing.T) {
	w := newWorld(t, store.SQLite)
	root, _ := storetest.MustSuperuser(t, w.s, "root")
	if _, res := w.run(t.Context(), t, search.Reader{UserID: root.ID}, "project:demo/internal-notes secret", 0, 15); res.Count != 0 {
		t.Errorf("superuser count %d, want 0", res.Count)
	}
}

// TestSearchLeavesOutHiddenVersions: a hidden version is not searched, even
// when named.
func TestSearchLeavesOutHiddenVersions(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		ctx := t.Context()
		for _, hidden := range []bool{false, true} {
			_, err := w.s.UpdateVersion(ctx, w.versions["demo/latest"].ID, store.VersionUpdate{Hidden: &hidden})
			must(t, err)
			want := 1
			if hidden {
				want = 0
			}
			for _, q := range []string{"project:demo install", "project:demo/latest install"} {
				if _, res := w.run(ctx, t, search.Reader{}, q, 0, 15); res.Count != want {
					t.Errorf("hidden=%v: %q count %d, want %d", hidden, q, res.Count, want)
				}
			}
		}
	})
}

// TestSearchManyMatches: with more matching pages than are judged on their
// text, the count is the number of pages holding the words, the pages come
// best first and later windows go on where earlier ones stopped.
func TestSearchManyMatches(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		pages := map[string]string{}
		for i := range 300 {
			body := strings.Repeat("filler ", i%40) + "common"
			if i%3 == 0 {
				body += " rare"
			}
			pages[fmt.Sprintf("p%03d.html", i)] = fmt.Sprintf("<main><h1>Page %d</h1><p>%s</p></main>", i, body)
		}
		w.index(t, "demo/v1.0", pages)
		for _, tc := range []struct {
			q     string
			count int
		}{{"common", 300}, {"rare", 100}, {"common rare", 300}, {"+common +rare", 100}} {
			var seen []string
			for offset := 0; offset < 120; offset += 15 {
				_, res := w.run(t.Context(), t, search.Reader{}, "project:demo/v1.0 "+tc.q, offset, 15)
				if res.Count != tc.count {
					t.Errorf("%q at %d: count %d, want %d", tc.q, offset, res.Count, tc.count)
				}
				for _, h := range res.Hits {
					seen = append(seen, h.StoredPath)
				}
			}
			if len(seen) != min(120, tc.count) {
				t.Errorf("%q: %d hits in 8 windows, want %d", tc.q, len(seen), min(120, tc.count))
			}
			dup := map[string]bool{}
			for _, p := range seen {
				if dup[p] {
					t.Errorf("%q: %s twice", tc.q, p)
				}
				dup[p] = true
			}
			// Shorter pages rank higher (BM25's length normalisation):
			// the first hit is one of the shortest.
			if len(seen) > 0 && !strings.HasPrefix(seen[0], "p0") && tc.q == "common" {
				t.Errorf("%q: first hit %s", tc.q, seen[0])
			}
		}
	})
}

// TestSearchRarePhraseOfCommonWords: a phrase of words on every page that
// only one page holds is found, and one no page holds finds nothing, with
// counts that say so.
func TestSearchRarePhraseOfCommonWords(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		w := newWorld(t, d)
		pages := map[string]string{}
		for i := range 200 {
			body := "beta alpha gamma"
			if i == 123 {
				body = "alpha beta gamma"
			}
			pages[fmt.Sprintf("p%03d.html", i)] = fmt.Sprintf("<main><h1>Page %d</h1><p>%s</p></main>", i, body)
		}
		w.index(t, "demo/v1.0", pages)
		for q, want := range map[string]string{`"alpha beta"`: "p123.html", `"gamma alpha"`: ""} {
			_, res := w.run(t.Context(), t, search.Reader{}, "project:demo/v1.0 "+q, 0, 15)
			got := ""
			if len(res.Hits) > 0 {
				got = res.Hits[0].StoredPath
			}
			if got != want || res.Count != len(res.Hits) || len(res.Hits) > 1 {
				t.Errorf("%s: count %d, hits %d, first %q; want %q", q, res.Count, len(res.Hits), got, want)
			}
		}
	})
}
