package search

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// slowWords is splitWords without the ASCII fast path: every run folded
// rune by rune.
func slowWords(text string) []word {
	var out []word
	for i := 0; i < len(text); {
		w, next := foldRun(text, i)
		if w.folded != "" {
			out = append(out, w)
		}
		i = max(next, i+1)
	}
	return out
}

// TestSplitWordsFastPath: the fast path splits and folds like the slow one
// on mixed text (ASCII, upper case, accents, marks, CJK, invalid UTF-8).
func TestSplitWordsFastPath(t *testing.T) {
	pieces := []string{"abc", "ABC", "x1", " ", ".", "é", "e\u0301", "\u0301", "日本", "\xff", "ß", "Ǆ", "-", "9", "ﬁ", "\x00", "İ"}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 2000; n++ {
		var s string
		for k := rng.IntN(8); k >= 0; k-- {
			s += pieces[rng.IntN(len(pieces))]
		}
		if got, want := splitWords(s), slowWords(s); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("splitWords(%q) = %+v, want %+v", s, got, want)
		}
	}
	if got := Words("Ünïcödé conf.py ﬁle"); !reflect.DeepEqual(got, []string{"unicode", "conf", "py", "file"}) {
		t.Errorf("Words = %q", got)
	}
}
