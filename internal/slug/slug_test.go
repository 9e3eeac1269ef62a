package slug

import (
	"fmt"
	"strings"
	"testing"
)

func TestProject(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"Test Project", "test-project"},
		{"My_Proj  2", "my-proj-2"},
		{"Déjà Vu", "deja-vu"},
		{"a__b--c", "a-b-c"},
		{" -x- ", "-x-"},
		{"!!!", ""},
		{"日本語", ""},
	} {
		if got := Project(tc.name); got != tc.want {
			t.Errorf("Project(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"release/1.0", "release-1.0"},
		{"1.0 RC 1", "1.0-rc-1"},
		{"_hidden", "hidden"},
		{"???", "unknown"},
		{"Ünïcode", "unicode"},
		{"feature@x", "featurex"},
		{"v1.0", "v1.0"},
		{strings.Repeat("a", 300), strings.Repeat("a", 255)},
	} {
		if got := Version(tc.name); got != tc.want {
			t.Errorf("Version(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if got := Version(tc.name); !ValidVersion(got) {
			t.Errorf("Version(%q) = %q is not a valid version slug", tc.name, got)
		}
	}
}

func TestUniqueVersion(t *testing.T) {
	taken := map[string]bool{"foo": true}
	if got := UniqueVersion("foo", func(s string) bool { return taken[s] }); got != "foo_a" {
		t.Errorf("got %q, want foo_a", got)
	}
	for i := 0; i < 26; i++ {
		taken[fmt.Sprintf("foo_%c", 'a'+i)] = true
	}
	if got := UniqueVersion("Foo", func(s string) bool { return taken[s] }); got != "foo_ba" {
		t.Errorf("got %q, want foo_ba", got)
	}
	long := strings.Repeat("x", 255)
	if got := UniqueVersion(long, func(s string) bool { return s == long }); len(got) != 255 || !strings.HasSuffix(got, "_a") {
		t.Errorf("got %q (len %d), want 255 characters ending in _a", got, len(got))
	}
}
