package pep440

import (
	"errors"
	"testing"
)

func mustParse(t testing.TB, s string) Version {
	t.Helper()
	v, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return v
}

// TestParse checks the normalised form of valid versions against what
// packaging's str(Version(s)) prints.
func TestParse(t *testing.T) {
	tests := []struct {
		in, want   string
		prerelease bool
	}{
		// Release and epoch.
		{"1", "1", false},
		{"1.0", "1.0", false},
		{"1.0.0", "1.0.0", false},
		{"01.002.0003", "1.2.3", false},
		{"0", "0", false},
		{"1!2.0", "1!2.0", false},
		{"0!1.0", "1.0", false},
		{"v1.0", "1.0", false},
		{"V1.0", "1.0", false},
		{" \t1.0\n ", "1.0", false},
		{"\x1c1.0\x1f", "1.0", false},
		{"\u30001.0\u00a0", "1.0", false},
		{"99999999999999999999999999.1", "99999999999999999999999999.1", false},
		// Pre-releases in every spelling.
		{"1.0a1", "1.0a1", true},
		{"1.0A1", "1.0a1", true},
		{"1.0alpha1", "1.0a1", true},
		{"1.0.alpha.1", "1.0a1", true},
		{"1.0-a-1", "1.0a1", true},
		{"1.0_a_1", "1.0a1", true},
		{"1.0a", "1.0a0", true},
		{"1.0a-", "1.0a0", true},
		{"1.0b2", "1.0b2", true},
		{"1.0beta2", "1.0b2", true},
		{"1.0c3", "1.0rc3", true},
		{"1.0rc3", "1.0rc3", true},
		{"1.0pre3", "1.0rc3", true},
		{"1.0preview3", "1.0rc3", true},
		{"1.0-RC-3", "1.0rc3", true},
		{"1.0a.post1", "1.0a0.post1", true},
		// Post-releases.
		{"1.0.post1", "1.0.post1", false},
		{"1.0post1", "1.0.post1", false},
		{"1.0-post1", "1.0.post1", false},
		{"1.0_post_1", "1.0.post1", false},
		{"1.0.post", "1.0.post0", false},
		{"1.0post-", "1.0.post0", false},
		{"1.0-1", "1.0.post1", false},
		{"1.0-0", "1.0.post0", false},
		{"1.0rev1", "1.0.post1", false},
		{"1.0.rev", "1.0.post0", false},
		{"1.0r1", "1.0.post1", false},
		{"1.0-r1", "1.0.post1", false},
		// Dev releases.
		{"1.0.dev1", "1.0.dev1", true},
		{"1.0dev1", "1.0.dev1", true},
		{"1.0-dev-1", "1.0.dev1", true},
		{"1.0.dev", "1.0.dev0", true},
		{"1.0.dev.", "1.0.dev0", true},
		{"1.0a1.dev2", "1.0a1.dev2", true},
		{"1.0.post1.dev2", "1.0.post1.dev2", true},
		{"1.0-1.dev2", "1.0.post1.dev2", true},
		{"1.0.post.dev", "1.0.post0.dev0", true},
		// Local labels.
		{"1.0+abc", "1.0+abc", false},
		{"1.0+AbC.05", "1.0+abc.5", false},
		{"1.0+a_b-c.d", "1.0+a.b.c.d", false},
		{"1.0+5", "1.0+5", false},
		{"1.0rc1.post2.dev3+ubuntu.1", "1.0rc1.post2.dev3+ubuntu.1", true},
		{"V2!1.0-Beta.3_Post.4-DEV-5+X.1", "2!1.0b3.post4.dev5+x.1", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v := mustParse(t, tt.in)
			if got := v.String(); got != tt.want {
				t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
			}
			if got := v.IsPrerelease(); got != tt.prerelease {
				t.Errorf("Parse(%q).IsPrerelease() = %v, want %v", tt.in, got, tt.prerelease)
			}
			again := mustParse(t, v.String())
			if c := Compare(again, v); c != 0 {
				t.Errorf("Compare(Parse(%q), Parse(%q)) = %d, want 0", v.String(), tt.in, c)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	for _, in := range []string{
		"",
		" ",
		"latest",
		"stable",
		"master",
		"abc",
		"1.0-",
		"1.0+",
		"1.0+a..b",
		"1.0+a_",
		"1..0",
		"1.0.",
		".1",
		"vv1.0",
		"v",
		"1.0prev",
		"1.0a1a2",
		"1.0.post1.post2",
		"1.0.dev1.dev2",
		"1.0.dev1a1",
		"1!",
		"!1.0",
		"1!2!3",
		"1.x",
		"1.0 beta",
		"1.0\u212a", // Kelvin sign: Python accepts it for "k", Parse does not
		"１.0",       // full-width digit
		"1.0-1-1",
	} {
		t.Run(in, func(t *testing.T) {
			v, err := Parse(in)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want an error", in, v)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse(%q) error %v does not wrap ErrInvalid", in, err)
			}
		})
	}
}

// TestCompareOrder checks a strictly increasing list in the spirit of
// packaging's own test suite: every pair must compare as its positions do.
func TestCompareOrder(t *testing.T) {
	ordered := []string{
		"0.9",
		"1.0.dev456",
		"1.0a1",
		"1.0a2.dev456",
		"1.0a12.dev456",
		"1.0a12",
		"1.0b1.dev456",
		"1.0b2",
		"1.0b2.post345.dev456",
		"1.0b2.post345",
		"1.0c1.dev456",
		"1.0c1",
		"1.0rc2",
		"1.0",
		"1.0+abc.5",
		"1.0+abc.7",
		"1.0+5",
		"1.0.post456.dev34",
		"1.0.post456",
		"1.0.1",
		"1.1.dev1",
		"1.1",
		"1.9",
		"1.10",
		"2.0",
		"99999999999999999999",
		"100000000000000000000",
		"1!0.1",
		"1!1.0",
		"2!0.0.dev0",
	}
	vs := make([]Version, len(ordered))
	for i, s := range ordered {
		vs[i] = mustParse(t, s)
	}
	for i := range vs {
		for j := range vs {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := Compare(vs[i], vs[j]); got != want {
				t.Errorf("Compare(%q, %q) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0.0", 0},
		{"1", "1.0.0.0", 0},
		{"0", "0.0", 0},
		{"v1.0", "1.0", 0},
		{"1.0a", "1.0a0", 0},
		{"1.0alpha1", "1.0a1", 0},
		{"1.0c1", "1.0rc1", 0},
		{"1.0pre1", "1.0rc1", 0},
		{"1.0-1", "1.0.post1", 0},
		{"1.0r", "1.0.post0", 0},
		{"1.0.dev", "1.0.dev0", 0},
		{"1.0+abc", "1.0+ABC", 0},
		{"1.0+1.a", "1.0+01_a", 0},
		{"1.0.0+abc", "1.0+abc", 0},
		{"0!1.0", "1.0", 0},
		{"1!1.0", "2.0", 1},
		{"1!1.0", "999.0", 1},
		{"1.0.dev0", "1.0a0", -1},
		{"1.0.dev0", "1.0.dev1", -1},
		{"1.0a1.dev0", "1.0a1", -1},
		{"1.0a1", "1.0a1.post0.dev0", -1},
		{"1.0.post0.dev0", "1.0", 1},
		{"1.0.post0.dev0", "1.0.post0", -1},
		{"1.0", "1.0+0", -1},
		{"1.0+a", "1.0+a.0", -1},
		{"1.0+z", "1.0+0", -1},
		{"1.0+abc", "1.0+abd", -1},
		{"1.0+10", "1.0+9", 1},
		{"1.0+0", "1.0.post0", -1},
		{"1.0.1", "1.0+z", 1},
		{"1.0a1+local", "1.0a1", 1},
		{"1.0a1+local", "1.0a2", -1},
		{"1.0.post1+x", "1.0.post2.dev0", -1},
		{"1.10", "1.9", 1},
		{"1.0.0.1", "1.0.1", -1},
		{"007", "7.0", 0},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			a, b := mustParse(t, tt.a), mustParse(t, tt.b)
			if got := Compare(a, b); got != tt.want {
				t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
			if got := Compare(b, a); got != -tt.want {
				t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
			}
		})
	}
}

func TestParseVerboseName(t *testing.T) {
	tests := []struct {
		name string
		want string // "" when the name is no version
	}{
		{"1.0", "1.0"},
		{"v1.10", "1.10"},
		{"release-1.0", ""},
		{"1.x", "1.0"},
		{"2.1.x", "2.1.0"},
		{"v2.x", "2.0"},
		{"1.x.x", "1.0.0"},
		{"1.X", ""},
		{"x.1", ""},
		{"1.xx", ""},
		{"1.0.x-rc1", "1.0.0rc1"},
		{"latest", ""},
		{"stable", ""},
		{"master", ""},
		{"main", ""},
		{"", ""},
		// NFKD, then non-ASCII dropped.
		{"Ünïcode", ""},
		{"1.0ä", "1.0a0"},       // ä → a + combining diaeresis → a
		{"１.０", "1.0"},          // full-width digits decompose to ASCII
		{"1.0\u212a", ""},       // Kelvin sign → K, not a version part
		{"1.0+\u212a", "1.0+k"}, // … but a valid local label
		{"1.0.po\u017ft1", "1.0.post1"},
		{"1.0→", "1.0"},      // dropped entirely
		{"β1.0", "1.0"},      // non-Latin script disappears
		{"1.0 β", "1.0"},     // "1.0 ": the trailing space is trimmed
		{"1.0\u00a0", "1.0"}, // no-break space → space
		{"\u00bd", "12"},     // ½ → 1⁄2, and the fraction slash is dropped
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := ParseVerboseName(tt.name)
			if ok != (tt.want != "") {
				t.Fatalf("ParseVerboseName(%q) ok = %v, want %v", tt.name, ok, tt.want != "")
			}
			if ok && v.String() != tt.want {
				t.Errorf("ParseVerboseName(%q) = %q, want %q", tt.name, v.String(), tt.want)
			}
		})
	}
}

func TestStableCandidate(t *testing.T) {
	tag := func(names ...string) []Candidate {
		var cs []Candidate
		for _, n := range names {
			cs = append(cs, Candidate{VerboseName: n, Type: "tag"})
		}
		return cs
	}
	branch := func(names ...string) []Candidate {
		var cs []Candidate
		for _, n := range names {
			cs = append(cs, Candidate{VerboseName: n, Type: "branch"})
		}
		return cs
	}
	join := func(lists ...[]Candidate) []Candidate {
		var cs []Candidate
		for _, l := range lists {
			cs = append(cs, l...)
		}
		return cs
	}
	tests := []struct {
		name     string
		cs       []Candidate
		want     string // verbose_name of the candidate, "" for none
		wantType string
	}{
		// The stable rule's worked examples.
		{"prerelease dropped", tag("1.0", "1.1", "2.0b1"), "1.1", "tag"},
		{"numeric not lexical", tag("v1.9", "v1.10"), "v1.10", "tag"},
		{"tag beats higher branch", join(branch("2.x"), tag("1.5")), "1.5", "tag"},
		{"only branches", branch("1.x", "2.x"), "2.x", "branch"},
		{"no versions", branch("latest", "master"), "", ""},
		// More.
		{"empty", nil, "", ""},
		{"dev dropped", tag("1.0", "2.0.dev1"), "1.0", "tag"},
		{"post kept", tag("1.0", "1.0.post1"), "1.0.post1", "tag"},
		{"rc dropped", tag("1.0rc1", "0.9"), "0.9", "tag"},
		{"only prereleases", tag("1.0a1", "2.0.dev0"), "", ""},
		{"epoch wins", tag("9.0", "1!0.1"), "1!0.1", "tag"},
		{"local after public", tag("1.0", "1.0+build.1"), "1.0+build.1", "tag"},
		{"machine names ignored", join(tag("stable"), branch("latest"), tag("0.1")), "0.1", "tag"},
		{"branch when no tag parses", join(tag("release-one"), branch("3.0", "main")), "3.0", "branch"},
		{"unicode name", tag("v1.0", "v2.0-ünïcode"), "v1.0", "tag"},
		{"unknown type never chosen", []Candidate{{VerboseName: "9.0", Type: "unknown"}}, "", ""},
		{"unknown type skipped", join([]Candidate{{VerboseName: "9.0", Type: "unknown"}}, branch("1.0")), "1.0", "branch"},
		// Ties (equal PEP 440 versions) keep verbose_name-descending order.
		{"tie descending name", tag("1.0", "1.0.0", "v1.0"), "v1.0", "tag"},
		{"tie descending name reversed input", tag("v1.0", "1.0.0", "1.0"), "v1.0", "tag"},
		{"tie x branch", branch("1.0", "1.x"), "1.x", "branch"},
		{"tie tag beats branch", join(branch("v1.0"), tag("1.0")), "1.0", "tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := StableCandidate(tt.cs)
			if ok != (tt.want != "") {
				t.Fatalf("StableCandidate ok = %v (%q), want %v", ok, got.VerboseName, tt.want != "")
			}
			if got.VerboseName != tt.want || got.Type != tt.wantType {
				t.Errorf("StableCandidate = %s %q, want %s %q", got.Type, got.VerboseName, tt.wantType, tt.want)
			}
		})
	}
}

// TestStableCandidateCarriesFields checks that the chosen Candidate comes
// back whole, so that callers can find their version by ID.
func TestStableCandidateCarriesFields(t *testing.T) {
	cs := []Candidate{
		{ID: 7, VerboseName: "1.0", Identifier: "0123abcd", Type: "tag"},
		{ID: 8, VerboseName: "2.x", Identifier: "origin/2.x", Type: "branch"},
		{ID: 9, VerboseName: "1.1", Identifier: "4567ef01", Type: "tag"},
	}
	before := append([]Candidate(nil), cs...)
	got, ok := StableCandidate(cs)
	if !ok {
		t.Fatal("StableCandidate found no candidate")
	}
	if want := cs[2]; got != want {
		t.Errorf("StableCandidate = %+v, want %+v", got, want)
	}
	for i := range cs {
		if cs[i] != before[i] {
			t.Errorf("StableCandidate changed its input: cs[%d] = %+v, was %+v", i, cs[i], before[i])
		}
	}
}

// FuzzParse checks that Parse never panics, that what it accepts prints as a
// string that parses to an equal version, and that Compare is a consistent
// order on parsed pairs.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"1.0", "v1!2.0rc1.post2.dev3+abc.5", "1.0-1", "1.0a-", "1.0.post.dev",
		"latest", "1.0-", "", " 1.0 ", "1.x", "1.0+a_b-c", "00.000", "Ünïcode",
		"1.0.dev456", "1.0b2.post345.dev456", "1.0+5",
	} {
		f.Add(s, "1.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		va, errA := Parse(a)
		vb, errB := Parse(b)
		ParseVerboseName(a)
		for _, p := range []struct {
			s   string
			v   Version
			err error
		}{{a, va, errA}, {b, vb, errB}} {
			if p.err != nil {
				if !errors.Is(p.err, ErrInvalid) {
					t.Fatalf("Parse(%q) error %v does not wrap ErrInvalid", p.s, p.err)
				}
				continue
			}
			norm := p.v.String()
			again, err := Parse(norm)
			if err != nil {
				t.Fatalf("Parse(%q) = %q, which does not parse: %v", p.s, norm, err)
			}
			if again.String() != norm {
				t.Fatalf("Parse(%q) = %q, which reparses as %q", p.s, norm, again.String())
			}
			if c := Compare(p.v, again); c != 0 {
				t.Fatalf("Compare(Parse(%q), Parse(%q)) = %d, want 0", p.s, norm, c)
			}
		}
		if errA != nil || errB != nil {
			return
		}
		ab, ba := Compare(va, vb), Compare(vb, va)
		if ab != -ba {
			t.Fatalf("Compare(%q, %q) = %d but Compare(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		if ab < -1 || ab > 1 {
			t.Fatalf("Compare(%q, %q) = %d, want -1, 0 or 1", a, b, ab)
		}
		if (ab == 0) != (va.String() == vb.String()) && !zeroPadded(va, vb) {
			t.Fatalf("Compare(%q, %q) = %d, but they print as %q and %q", a, b, ab, va, vb)
		}
	})
}

// zeroPadded reports whether a and b differ only in trailing zeros of their
// release, the one way two versions can be equal and print differently.
func zeroPadded(a, b Version) bool {
	a.release, b.release = trimZeros(a.release), trimZeros(b.release)
	return a.String() == b.String()
}
