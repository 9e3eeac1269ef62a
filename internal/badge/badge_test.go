package badge_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"docsd/internal/badge"
)

// parsed is what a test reads of a badge image.
type parsed struct {
	width, height int
	label         string   // aria-label of the root
	title         string   // the <title>
	texts         []string // visible texts (not aria-hidden), in order
	fills         []string // fill colours of rects, in order
}

// parseSVG reads an SVG badge with encoding/xml, failing the test when it
// is not well-formed SVG.
func parseSVG(t *testing.T, b []byte) parsed {
	t.Helper()
	var p parsed
	dec := xml.NewDecoder(bytes.NewReader(b))
	var stack []xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tok)
			attr := func(name string) string {
				for _, a := range tok.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch tok.Name.Local {
			case "svg":
				if tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Fatalf("root namespace %q, want SVG's", tok.Name.Space)
				}
				p.width, _ = strconv.Atoi(attr("width"))
				p.height, _ = strconv.Atoi(attr("height"))
				p.label = attr("aria-label")
			case "rect":
				if f := attr("fill"); strings.HasPrefix(f, "#") {
					p.fills = append(p.fills, f)
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 {
				continue
			}
			top := stack[len(stack)-1]
			switch top.Name.Local {
			case "title":
				p.title += string(tok)
			case "text":
				hidden := false
				for _, a := range top.Attr {
					hidden = hidden || a.Name.Local == "aria-hidden"
				}
				if !hidden {
					p.texts = append(p.texts, string(tok))
				}
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements")
	}
	return p
}

func TestSVG(t *testing.T) {
	colors := map[string]string{badge.Passing: "#4c1", badge.Failing: "#e05d44", badge.Unknown: "#dfb317"}
	for _, status := range []string{badge.Passing, badge.Failing, badge.Unknown} {
		for _, style := range badge.Styles {
			t.Run(status+"/"+style, func(t *testing.T) {
				p := parseSVG(t, badge.SVG(status, style))
				wantTexts := []string{"docs", status}
				switch style {
				case badge.ForTheBadge:
					wantTexts = []string{"DOCS", strings.ToUpper(status)}
				case badge.Social:
					wantTexts = []string{"Docs", status}
				}
				if strings.Join(p.texts, "|") != strings.Join(wantTexts, "|") {
					t.Errorf("texts %q, want %q", p.texts, wantTexts)
				}
				if p.title != "docs: "+status || p.label != "docs: "+status {
					t.Errorf("title %q, aria-label %q, want %q", p.title, p.label, "docs: "+status)
				}
				if style != badge.Social && !slices.Contains(p.fills, colors[status]) {
					t.Errorf("rect fills %q lack the %s colour %s", p.fills, status, colors[status])
				}
				wantH := map[string]int{badge.Plastic: 18, badge.ForTheBadge: 28}[style]
				if wantH == 0 {
					wantH = 20
				}
				if p.height != wantH || p.width < 60 || p.width > 160 {
					t.Errorf("size %dx%d, want height %d and a badge's width", p.width, p.height, wantH)
				}
			})
		}
	}
}

// TestSVGSizes pins the widths Read the Docs' badges have, which READMEs
// lay out around.
func TestSVGSizes(t *testing.T) {
	for _, c := range []struct {
		status, style string
		width         int
	}{
		{badge.Passing, badge.Flat, 86}, {badge.Failing, badge.Flat, 78}, {badge.Unknown, badge.Flat, 96},
		{badge.Passing, badge.ForTheBadge, 144}, {badge.Failing, badge.ForTheBadge, 138}, {badge.Unknown, badge.ForTheBadge, 152},
		{badge.Passing, badge.Social, 91}, {badge.Failing, badge.Social, 83}, {badge.Unknown, badge.Social, 101},
	} {
		if got := parseSVG(t, badge.SVG(c.status, c.style)).width; got != c.width {
			t.Errorf("%s %s: width %d, want %d", c.status, c.style, got, c.width)
		}
	}
}

func TestStyleAndStatusFallBack(t *testing.T) {
	if got := badge.Style("3d"); got != badge.Flat {
		t.Errorf("Style(3d) = %q, want flat", got)
	}
	if got := badge.Style(badge.Social); got != badge.Social {
		t.Errorf("Style(social) = %q", got)
	}
	if got := badge.Status("building"); got != badge.Unknown {
		t.Errorf("Status(building) = %q, want unknown", got)
	}
	if !bytes.Equal(badge.SVG("nonsense", "nonsense"), badge.SVG(badge.Unknown, badge.Flat)) {
		t.Error("an unknown state and style are not drawn as unknown/flat")
	}
}

func TestToken(t *testing.T) {
	const key, old = "0123456789abcdef-current", "0123456789abcdef-previous"
	tok := badge.Token(key, 1, "demo")
	if len(tok) != 64 {
		t.Fatalf("token %q, want 64 hex digits", tok)
	}
	if tok == badge.Token(key, 2, "other") || tok == badge.Token(old, 1, "demo") || tok == badge.Token(key, 2, "demo") {
		t.Error("tokens of other projects, keys or ids are equal")
	}
	for _, c := range []struct {
		name  string
		keys  []string
		id    int64
		slug  string
		token string
		want  bool
	}{
		{"current key", []string{key, old}, 1, "demo", tok, true},
		{"old key still accepted", []string{"another-key-0123456", key}, 1, "demo", tok, true},
		{"other project", []string{key}, 2, "other", tok, false},
		{"same slug, another project", []string{key}, 7, "demo", tok, false},
		{"no keys", nil, 1, "demo", tok, false},
		{"empty key skipped", []string{""}, 1, "demo", "", false},
		{"empty token", []string{key}, 1, "demo", "", false},
		{"tampered", []string{key}, 1, "demo", tok[:63] + "0", tok[63] == '0'},
	} {
		if got := badge.ValidToken(c.keys, c.id, c.slug, c.token); got != c.want {
			t.Errorf("%s: ValidToken = %v, want %v", c.name, got, c.want)
		}
	}
	if badge.Token("", 1, "demo") != "" {
		t.Error("a token is made without a key")
	}
}
