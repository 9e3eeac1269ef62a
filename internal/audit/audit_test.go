package audit_test

import (
	"strings"
	"testing"

	"docsd/internal/audit"
)

// TestBrowser: a User-Agent of up to 250 characters is kept whole; a
// longer one is cut to 238 and marked.
func TestBrowser(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"Mozilla/5.0", "Mozilla/5.0"},
		{strings.Repeat("a", 250), strings.Repeat("a", 250)},
		{strings.Repeat("é", 251), strings.Repeat("é", 238) + " - Truncated"},
	} {
		if got := audit.Browser(tc.in); got != tc.want {
			t.Errorf("Browser(%d characters) = %d characters %q…", len([]rune(tc.in)), len([]rune(got)), got[:min(len(got), 20)])
		}
	}
}

// TestRecordsPageview: which reads each --audit-pageviews value records.
func TestRecordsPageview(t *testing.T) {
	for _, tc := range []struct {
		mode           string
		public, hidden bool // recorded for a public version, for a non-public one
	}{
		{"off", false, false},
		{"private", false, true},
		{"all", true, true},
	} {
		p, ok := audit.ParsePageviews(tc.mode)
		if !ok {
			t.Fatalf("%s not parsed", tc.mode)
		}
		rec := &audit.Recorder{Pageviews: p}
		if rec.RecordsPageview(true) != tc.public || rec.RecordsPageview(false) != tc.hidden {
			t.Errorf("%s: public %v, non-public %v", tc.mode, rec.RecordsPageview(true), rec.RecordsPageview(false))
		}
	}
	if _, ok := audit.ParsePageviews("some"); ok {
		t.Error("an unknown value is accepted")
	}
	var none *audit.Recorder
	if none.RecordsPageview(false) {
		t.Error("a nil recorder records")
	}
}
