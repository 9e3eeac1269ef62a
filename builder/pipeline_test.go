package builder

import (
	"strings"
	"testing"

	"docsd/store"
)

func TestMarkdownProjectEndToEnd(t *testing.T) {
	r := newRepo(t, "main")
	r.commit("docs", map[string]string{
		"docs/index.md":       "# Welcome\n\nSee [the guide](guide/usage.md#install).\n\n## Section A\n\ntext\n",
		"docs/guide/usage.md": "# Usage\n\n## Install\n\nRun it.\n",
		"docs/img/logo.svg":   "<svg/>",
	})
	f := newFixture(t, store.SQLite, Config{})
	imp := f.importProject("Plain Docs", r)
	f.drain()

	b := f.mustSucceed(imp.Build)
	got := commandLines(f.commands(b.ID))
	t.Logf("%q", got)
	index := f.htmlFile("plain-docs", "latest", "index.html")
	if !strings.Contains(index, `href="guide/usage.html#install"`) {
		t.Errorf("index.html does not link to the guide page:\n%s", index)
	}
	if b.Commit == nil || len(*b.Commit) != 40 {
		t.Errorf("commit = %v, want a SHA", b.Commit)
	}
}
