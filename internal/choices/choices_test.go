package choices

import "testing"

// TestIsSingleVersion pins the rule REST's single_version, the graph's
// singleVersion, the docs host and redirects share: only the single-version
// scheme serves one version.
func TestIsSingleVersion(t *testing.T) {
	for _, tc := range []struct {
		scheme string
		want   bool
	}{
		{SingleVersionWithoutTranslations, true},
		{MultipleVersionsWithTranslations, false},
		{MultipleVersionsWithoutTranslations, false},
		{"", false},
	} {
		if got := IsSingleVersion(tc.scheme); got != tc.want {
			t.Errorf("IsSingleVersion(%q) = %v, want %v", tc.scheme, got, tc.want)
		}
	}
}
