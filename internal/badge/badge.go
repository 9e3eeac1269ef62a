// Package badge draws a project's documentation badge, the small SVG image
// maintainers put in their README ("docs | passing"), in the states and
// styles Read the Docs offers at the same path, and makes and checks the
// per-project tokens that let a badge show the state of a version the
// image's reader could not otherwise see.
//
// The images have the shields.io layout Read the Docs serves: a grey
// "docs" label and a coloured message, measured for Verdana 11 px (the
// texts are fixed, so their widths are too).
package badge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// The states a badge shows: the version's most recent finished build
// passed or failed, or nothing is known (no such project or version, none
// the reader may see, no finished build).
const (
	Passing = "passing"
	Failing = "failing"
	Unknown = "unknown"
)

// The styles a badge is drawn in; DefaultStyle when none (or another) is
// asked for.
const (
	Flat         = "flat"
	FlatSquare   = "flat-square"
	Plastic      = "plastic"
	ForTheBadge  = "for-the-badge"
	Social       = "social"
	DefaultStyle = Flat
)

// Styles lists every style, in the order the documentation shows them.
var Styles = []string{Flat, FlatSquare, Plastic, ForTheBadge, Social}

// Style returns s when it names a style, else DefaultStyle (Read the Docs
// answers an unknown style with the flat badge, not an error).
func Style(s string) string {
	for _, st := range Styles {
		if s == st {
			return s
		}
	}
	return DefaultStyle
}

// Status returns s when it names a state, else Unknown.
func Status(s string) string {
	switch s {
	case Passing, Failing:
		return s
	}
	return Unknown
}

// message is how one state is drawn: its colour and the widths, in
// pixels, of its text in the normal and the bold upper-case fonts, and in
// the social style's bold Helvetica.
type message struct {
	color                 string
	width, upper, helvBld int
}

var messages = map[string]message{
	Passing: {"#4c1", 41, 61, 39},
	Failing: {"#e05d44", 33, 55, 31},
	Unknown: {"#dfb317", 51, 69, 49},
}

// The label's text widths, as message's.
const (
	labelText      = "docs"
	labelWidth     = 25 // "docs"
	labelUpper     = 35 // "DOCS"
	labelHelvBold  = 27 // "Docs"
	labelColor     = "#555"
	verdana        = "DejaVu Sans,Verdana,Geneva,sans-serif"
	helvetica      = "Helvetica Neue,Helvetica,Arial,sans-serif"
	svgOpen        = `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="docs: %s">`
	svgTitle       = `<title>docs: %s</title>`
	padding        = 10 // flat, flat-square, plastic: 5 px each side
	paddingBig     = 24 // for-the-badge: 12 px each side
	paddingSocial  = 8  // social's message box
	socialLabelBox = 37
)

// SVG returns the badge image of a state in a style; an unknown state is
// drawn as Unknown and an unknown style as DefaultStyle.
func SVG(status, style string) []byte {
	status, style = Status(status), Style(style)
	m := messages[status]
	var b strings.Builder
	switch style {
	case ForTheBadge:
		forTheBadge(&b, status, m)
	case Social:
		social(&b, status, m)
	default:
		rounded(&b, status, style, m)
	}
	return []byte(b.String())
}

// rounded draws the flat, flat-square and plastic styles: two boxes side
// by side, with a gradient and a text shadow except in flat-square.
func rounded(b *strings.Builder, status, style string, m message) {
	lw, mw := labelWidth+padding, m.width+padding
	w, h, textY := lw+mw, 20, 140
	if style == Plastic {
		h, textY = 18, 130
	}
	fmt.Fprintf(b, svgOpen, w, h, status)
	fmt.Fprintf(b, svgTitle, status)
	switch style {
	case FlatSquare:
		b.WriteString(`<g shape-rendering="crispEdges">`)
	case Plastic:
		b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#fff" stop-opacity=".7"/>` +
			`<stop offset=".1" stop-color="#aaa" stop-opacity=".1"/><stop offset=".9" stop-opacity=".3"/>` +
			`<stop offset="1" stop-opacity=".5"/></linearGradient>`)
		fmt.Fprintf(b, `<clipPath id="r"><rect width="%d" height="%d" rx="4" fill="#fff"/></clipPath><g clip-path="url(#r)">`, w, h)
	default:
		b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>` +
			`<stop offset="1" stop-opacity=".1"/></linearGradient>`)
		fmt.Fprintf(b, `<clipPath id="r"><rect width="%d" height="%d" rx="3" fill="#fff"/></clipPath><g clip-path="url(#r)">`, w, h)
	}
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="%s"/><rect x="%d" width="%d" height="%d" fill="%s"/>`,
		lw, h, labelColor, lw, mw, h, m.color)
	if style != FlatSquare {
		fmt.Fprintf(b, `<rect width="%d" height="%d" fill="url(#s)"/>`, w, h)
	}
	b.WriteString(`</g>`)
	fmt.Fprintf(b, `<g fill="#fff" text-anchor="middle" font-family="%s" font-size="110">`, verdana)
	// Coordinates are in tenths of a pixel (scale(.1)), as shields.io's.
	texts := [2]struct {
		x, length int
		text      string
	}{{(lw*10)/2 + 10, labelWidth * 10, labelText}, {lw*10 + (mw*10)/2 - 10, m.width * 10, status}}
	for _, t := range texts {
		if style != FlatSquare {
			fmt.Fprintf(b, `<text aria-hidden="true" x="%d" y="%d" fill="#010101" fill-opacity=".3" transform="scale(.1)" textLength="%d">%s</text>`,
				t.x, textY+10, t.length, t.text)
		}
		fmt.Fprintf(b, `<text x="%d" y="%d" transform="scale(.1)" textLength="%d">%s</text>`, t.x, textY, t.length, t.text)
	}
	b.WriteString(`</g></svg>`)
}

// forTheBadge draws the tall, square, upper-case style.
func forTheBadge(b *strings.Builder, status string, m message) {
	lw, mw := labelUpper+paddingBig, m.upper+paddingBig
	w, h := lw+mw, 28
	fmt.Fprintf(b, svgOpen, w, h, status)
	fmt.Fprintf(b, svgTitle, status)
	fmt.Fprintf(b, `<g shape-rendering="crispEdges"><rect width="%d" height="%d" fill="%s"/><rect x="%d" width="%d" height="%d" fill="%s"/></g>`,
		lw, h, labelColor, lw, mw, h, m.color)
	fmt.Fprintf(b, `<g fill="#fff" text-anchor="middle" font-family="%s" font-size="100">`, verdana)
	fmt.Fprintf(b, `<text x="%d" y="175" transform="scale(.1)" textLength="%d">%s</text>`, lw*10/2, labelUpper*10, strings.ToUpper(labelText))
	fmt.Fprintf(b, `<text x="%d" y="175" font-weight="bold" transform="scale(.1)" textLength="%d">%s</text>`,
		lw*10+mw*10/2, m.upper*10, strings.ToUpper(status))
	b.WriteString(`</g></svg>`)
}

// social draws GitHub's button look: a light label box and a speech-bubble
// message box, the same colours whatever the state.
func social(b *strings.Builder, status string, m message) {
	mw := m.helvBld + paddingSocial
	mx10 := 435 // the message box starts at 43.5 px
	w := (mx10+mw*10)/10 + 1
	fmt.Fprintf(b, svgOpen, w, 20, status)
	fmt.Fprintf(b, svgTitle, status)
	b.WriteString(`<linearGradient id="a" x2="0" y2="100%"><stop offset="0" stop-color="#fcfcfc" stop-opacity="0"/><stop offset="1" stop-opacity=".1"/></linearGradient>`)
	fmt.Fprintf(b, `<g stroke="#d5d5d5"><rect stroke="none" fill="#fcfcfc" x=".5" y=".5" width="%d" height="19" rx="2"/>`, socialLabelBox)
	fmt.Fprintf(b, `<rect x="43.5" y=".5" width="%d" height="19" rx="2" fill="#fafafa"/>`, mw)
	b.WriteString(`<path stroke="#fafafa" d="M43 7.5h.5v5h-.5z"/><path d="M43.5 6.5l-3 3v1l3 3" fill="#fafafa"/></g>`)
	fmt.Fprintf(b, `<g fill="#333" text-anchor="middle" font-family="%s" font-weight="700" font-size="110">`, helvetica)
	label := "Docs"
	texts := [2]struct {
		x, length int
		text      string
	}{{185, labelHelvBold * 10, label}, {mx10 + mw*10/2 - 5, m.helvBld * 10, status}}
	for _, t := range texts {
		fmt.Fprintf(b, `<text aria-hidden="true" x="%d" y="150" fill="#fff" transform="scale(.1)" textLength="%d">%s</text>`, t.x, t.length, t.text)
		fmt.Fprintf(b, `<text x="%d" y="140" transform="scale(.1)" textLength="%d">%s</text>`, t.x, t.length, t.text)
	}
	fmt.Fprintf(b, `</g><rect stroke="#d5d5d5" fill="url(#a)" x=".5" y=".5" width="%d" height="19" rx="2"/></svg>`, socialLabelBox)
}

// tokenContext separates badge tokens from anything else made with the
// same key.
const tokenContext = "docsd badge token\x00"

// Token returns the badge token of a project: an HMAC-SHA256 of its id and
// slug under key, in hex. It lets a badge URL show the state of the
// project's non-public versions to whoever has the URL; it is "" when key
// is empty (no key configured: no token is issued, none is accepted). The
// id makes a project deleted and made again under the same slug a new
// token; a token once given out opens the badge until the key rotates.
func Token(key string, projectID int64, projectSlug string) string {
	if key == "" {
		return ""
	}
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(tokenContext + strconv.FormatInt(projectID, 10) + "\x00" + projectSlug))
	return hex.EncodeToString(mac.Sum(nil))
}

// ValidToken reports whether token is the badge token of the project under
// one of keys (the current key, then keys still accepted after a
// rotation). Empty keys are skipped; an empty token is never valid.
func ValidToken(keys []string, projectID int64, projectSlug, token string) bool {
	if token == "" {
		return false
	}
	for _, k := range keys {
		if want := Token(k, projectID, projectSlug); want != "" && hmac.Equal([]byte(want), []byte(token)) {
			return true
		}
	}
	return false
}
