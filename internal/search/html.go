package search

import (
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Section is one searchable part of a page: an anchor (may be empty), a
// title and normalised content.
type Section struct {
	ID      string
	Title   string
	Content string
	// Definition marks an API object's signature (Sphinx's <dt class="sig">)
	// and its description.
	Definition bool
	// Labels are the section's other anchors: the ids of the empty
	// elements right before its heading (Sphinx's reference labels,
	// `f-strings` of "Formatted string literals").
	Labels []string
}

// Page is what one HTML file contributes to the index.
type Page struct {
	Title    string
	Sections []Section
}

// maxSections bounds the sections of one page; more are dropped.
const maxSections = 10000

// ParsePage splits an HTML document into a title and sections with RTD's
// generic parser rules. path is the file's path in the tree, the title of
// last resort. The error is non-nil only when r cannot be read or parsed as
// HTML.
func ParsePage(r io.Reader, path string) (*Page, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, err
	}
	body := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	if body == nil {
		body = doc
	}
	main := mainNode(body)
	clean(main)
	p := &Page{Title: path}
	if h1 := find(main, isTag(atom.H1)); h1 != nil {
		p.Title = normalise(textOf(h1))
	} else if t := find(doc, isTag(atom.Title)); t != nil && normalise(textOf(t)) != "" {
		p.Title = normalise(textOf(t))
	}
	p.Sections = definitionSections(main)
	if lead := normalise(collectUntilHeading(main.FirstChild, 0, 3)); lead != "" {
		p.Sections = append(p.Sections, Section{Title: p.Title, Content: lead})
	}
	p.Sections = append(p.Sections, headingSections(main)...)
	if len(p.Sections) > maxSections {
		p.Sections = p.Sections[:maxSections]
	}
	return p, nil
}

// mainNode is the part of the page that is indexed: the first element with
// role="main" in body; else the first <main>; else the parent of the first
// <h1> (of its <header> when it is in one); else body. Sphinx and MkDocs
// themes and the built-in Markdown builder all mark theirs with
// role="main" or <main>.
func mainNode(body *html.Node) *html.Node {
	if n := find(body, func(n *html.Node) bool { return attr(n, "role") == "main" }); n != nil {
		return n
	}
	if n := find(body, isTag(atom.Main)); n != nil {
		return n
	}
	if h1 := find(body, isTag(atom.H1)); h1 != nil {
		container := h1
		if h1.Parent != nil && h1.Parent.DataAtom == atom.Header {
			container = h1.Parent
		}
		if container.Parent != nil {
			return container.Parent
		}
	}
	return body
}

// removedTags and removedClasses are what clean strips.
var (
	removedTags    = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Template: true, atom.Noscript: true, atom.Nav: true}
	removedClasses = []string{"headerlink", "linenos", "lineno", "toctree-wrapper"}
)

func removable(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return n.Type == html.CommentNode
	}
	if removedTags[n.DataAtom] {
		return true
	}
	if role := attr(n, "role"); role == "navigation" || role == "search" {
		return true
	}
	for _, c := range removedClasses {
		if hasClass(n, c) {
			return true
		}
	}
	return false
}

// clean removes from the main node what is not the page's own text:
// scripts, styles, templates, noscript, navigation (<nav>,
// role=navigation, role=search), Sphinx's header links, line numbers and
// toctrees.
func clean(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if removable(c) {
			n.RemoveChild(c)
		} else {
			clean(c)
		}
		c = next
	}
}

// definitionSections makes the first sections: one per <dt> with an id and
// its following <dd> (Sphinx API objects, glossaries), the <dt>'s text as
// title, the <dd>'s as content. It removes the pairs it used.
func definitionSections(main *html.Node) []Section {
	var dls []*html.Node
	walk(main, func(n *html.Node) {
		if n.DataAtom == atom.Dl {
			dls = append(dls, n)
		}
	})
	var out []Section
	var used []*html.Node
	for _, dl := range dls {
		for dt := dl.FirstChild; dt != nil; dt = dt.NextSibling {
			if dt.DataAtom != atom.Dt || attr(dt, "id") == "" {
				continue
			}
			dd := dt.NextSibling
			for dd != nil && dd.DataAtom != atom.Dd {
				dd = dd.NextSibling
			}
			if dd == nil {
				continue
			}
			out = append(out, Section{ID: attr(dt, "id"), Title: normalise(textOf(dt)), Content: normalise(textSkipping(dd, isDefinitionPair)),
				Definition: hasClass(dt, "sig")})
			used = append(used, dt, dd)
		}
	}
	for _, n := range used {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	return out
}

// isDefinitionPair reports whether n is a dt with an id or the dd that
// follows one, inside a nested list.
func isDefinitionPair(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Dt:
		return attr(n, "id") != ""
	case atom.Dd:
		for p := n.PrevSibling; p != nil; p = p.PrevSibling {
			if p.DataAtom == atom.Dt {
				return attr(p, "id") != ""
			}
		}
	}
	return false
}

// headingSections makes one section per heading, level 1 to 6, each level
// in document order: the heading's text as title, its id or else its
// parent's (Sphinx puts it on the enclosing section) as id, and the text up
// to the next heading as content.
func headingSections(main *html.Node) []Section {
	var out []Section
	for _, level := range []atom.Atom{atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6} {
		walk(main, func(h *html.Node) {
			if h.DataAtom != level {
				return
			}
			id := attr(h, "id")
			if id == "" && h.Parent != nil {
				id = attr(h.Parent, "id")
			}
			container := h
			if h.Parent != nil && h.Parent.DataAtom == atom.Header {
				container = h.Parent
			}
			out = append(out, Section{ID: id, Title: normalise(textOf(h)), Content: normalise(collectUntilHeading(container.NextSibling, 0, 2)),
				Labels: labelsBefore(container)})
		})
	}
	return out
}

// labelsBefore returns the ids of the empty elements right before a
// heading, leaving out the numbered ones Sphinx makes for index entries
// and duplicate titles (index-3, id2).
func labelsBefore(h *html.Node) []string {
	var out []string
	for n := h.PrevSibling; n != nil; n = n.PrevSibling {
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) == "" {
			continue
		}
		if n.Type != html.ElementNode || n.FirstChild != nil || attr(n, "id") == "" {
			break
		}
		if id := attr(n, "id"); !numberedID(id) {
			out = append(out, id)
		}
	}
	return out
}

// numberedID reports whether id is "index-N" or "idN".
func numberedID(id string) bool {
	rest, ok := strings.CutPrefix(id, "index-")
	if !ok {
		rest, ok = strings.CutPrefix(id, "id")
	}
	if !ok || rest == "" {
		return false
	}
	return strings.Trim(rest, "0123456789") == ""
}

// isHeading reports whether n ends a section: h1–h6 or header.
func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header:
		return true
	}
	return false
}

// collectUntilHeading returns the text of n and its following siblings up
// to the first heading, descending at most maxDepth levels below depth
// (deeper elements contribute their whole text).
func collectUntilHeading(n *html.Node, depth, maxDepth int) string {
	var b strings.Builder
	collect(&b, n, depth, maxDepth)
	return b.String()
}

// collect appends text to b and reports whether it met a heading.
func collect(b *strings.Builder, n *html.Node, depth, maxDepth int) bool {
	for ; n != nil; n = n.NextSibling {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type != html.ElementNode:
		case isHeading(n):
			return true
		case depth < maxDepth && !isCodeBlock(n):
			block := blockTags[n.DataAtom]
			if block {
				b.WriteByte(' ')
			}
			if collect(b, n.FirstChild, depth+1, maxDepth) {
				return true
			}
			if block {
				b.WriteByte(' ')
			}
		default:
			writeText(b, n, nil)
		}
	}
	return false
}

// blockTags are separated by spaces in extracted text.
var blockTags = map[atom.Atom]bool{}

func init() {
	for _, a := range []atom.Atom{atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Canvas,
		atom.Dd, atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer,
		atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Header, atom.Hr, atom.Li,
		atom.Main, atom.Nav, atom.Noscript, atom.Ol, atom.P, atom.Pre, atom.Section, atom.Table,
		atom.Tfoot, atom.Ul, atom.Video} {
		blockTags[a] = true
	}
}

// isCodeBlock reports whether n is a highlighted code block: a class
// starting with "highlight" and a <pre> inside.
func isCodeBlock(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for _, c := range strings.Fields(attr(n, "class")) {
		if strings.HasPrefix(c, "highlight") {
			return find(n, isTag(atom.Pre)) != nil
		}
	}
	return false
}

// textOf is the text content of n, blocks separated by spaces.
func textOf(n *html.Node) string { return textSkipping(n, nil) }

func textSkipping(n *html.Node, skip func(*html.Node) bool) string {
	var b strings.Builder
	writeText(&b, n, skip)
	return b.String()
}

func writeText(b *strings.Builder, n *html.Node, skip func(*html.Node) bool) {
	switch {
	case n.Type == html.TextNode:
		b.WriteString(n.Data)
		return
	case n.Type != html.ElementNode && n.Type != html.DocumentNode:
		return
	case isCodeBlock(n):
		n = find(n, isTag(atom.Pre))
	}
	block := blockTags[n.DataAtom]
	if block {
		b.WriteByte(' ')
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if skip == nil || !skip(c) {
			writeText(b, c, skip)
		}
	}
	if block {
		b.WriteByte(' ')
	}
}

// find returns the first node under n (n excluded) in document order for
// which ok holds, or nil.
func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && ok(c) {
			return c
		}
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

// walk calls fn for every element under n in document order.
func walk(n *html.Node, fn func(*html.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			fn(c)
		}
		walk(c, fn)
	}
}

func isTag(a atom.Atom) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.DataAtom == a }
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}
