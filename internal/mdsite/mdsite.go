// Package mdsite is docsd's built-in Markdown site builder: it renders a
// mkdocs.yml nav, a docs/ folder or a README.md into HTML pages without
// MkDocs. The builder uses it for the mkdocs doctype when there is no
// mkdocs.yml or MkDocs is not installed.
package mdsite

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"docsd/internal/rtdconfig"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// Options says what the built-in builder renders.
type Options struct {
	Root     string // the checkout
	Source   string // a mkdocs.yml (relative to Root), "docs", or "README.md"
	Out      string // the HTML directory to write
	SiteName string // used when the source names none
	Strict   bool   // warnings are errors (mkdocs.fail_on_warning)
	Language string // the <html lang>
}

// mdPage is one Markdown page of the site.
type mdPage struct {
	Src   string // slash path relative to the docs directory
	Out   string // slash path of its HTML file relative to the site root
	Title string
	HTML  template.HTML
	TOC   []tocEntry
}

type tocEntry struct {
	Level int
	ID    string
	Title string
}

// navItem is an entry of the site navigation: a page, an external link,
// or a section with children.
type navItem struct {
	Title    string
	Page     string // slash path of the page's source, "" for sections and links
	URL      string // external link
	Children []*navItem
}

// Build is the built-in Markdown builder: it renders a mkdocs.yml nav, or
// else a docs/ folder, or else a root README.md, with goldmark into HTML
// pages with navigation and a table of contents. It returns its log; an
// error means the build failed (the log says why).
func Build(ctx context.Context, o Options) (string, error) {
	b := &site{o: o, siteName: o.SiteName, docsDir: o.Root}
	err := b.build(ctx)
	return b.log.String(), err
}

// site is one run of the built-in builder.
type site struct {
	o        Options
	log      strings.Builder
	warnings int
	siteName string
	docsDir  string
	only     string // a single file to render (README.md)
	nav      []*navItem
	pages    map[string]*mdPage
	order    []string
}

func (b *site) logf(format string, args ...any) { fmt.Fprintf(&b.log, format+"\n", args...) }

func (b *site) warnf(format string, args ...any) {
	b.warnings++
	b.logf("WARNING: "+format, args...)
}

func (b *site) build(ctx context.Context) error {
	if err := b.source(); err != nil {
		return err
	}
	b.logf("INFO: Building documentation from %s", b.o.Source)
	if err := b.collect(); err != nil {
		return err
	}
	if err := b.render(ctx); err != nil {
		return err
	}
	if err := b.write(); err != nil {
		return err
	}
	b.logf("INFO: %d pages written", len(b.order))
	if b.o.Strict && b.warnings > 0 {
		return fmt.Errorf("aborted with %d warnings in strict mode", b.warnings)
	}
	return nil
}

// source reads what to render: README.md, docs/, or a mkdocs.yml's
// docs_dir and nav.
func (b *site) source() error {
	o := b.o
	switch {
	case o.Source == "README.md":
		b.only = "README.md"
		return nil
	case o.Source == "docs":
		b.docsDir = filepath.Join(o.Root, "docs")
		return nil
	}
	mk, err := readMkDocsConfig(filepath.Join(o.Root, o.Source))
	if err != nil {
		return err
	}
	if mk.SiteName != "" {
		b.siteName = mk.SiteName
	}
	dd := mk.DocsDir
	if dd == "" {
		dd = "docs"
	}
	b.docsDir = filepath.Join(filepath.Dir(filepath.Join(o.Root, o.Source)), dd)
	if rel, err := filepath.Rel(o.Root, b.docsDir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s: docs_dir %q is outside the repository", o.Source, dd)
	}
	if mk.Nav != nil {
		if b.nav, err = parseNav(mk.Nav); err != nil {
			return fmt.Errorf("%s: nav: %v", o.Source, err)
		}
	}
	return nil
}

// collect lists the pages and checks the nav against them.
func (b *site) collect() error {
	var sources []string
	if b.only != "" {
		if st, err := os.Lstat(filepath.Join(b.docsDir, b.only)); err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", b.only)
		}
		sources = []string{b.only}
	} else {
		var err error
		if sources, err = markdownFiles(b.docsDir); err != nil {
			return err
		}
	}
	if len(sources) == 0 {
		return fmt.Errorf("no Markdown files found in %s", b.o.Source)
	}
	b.pages = map[string]*mdPage{}
	b.order = sortPages(sources)
	for _, src := range b.order {
		b.pages[src] = &mdPage{Src: src, Out: outputPath(src, sources)}
	}
	if b.nav == nil {
		b.nav = autoNav(b.order)
	}
	for _, item := range flattenNav(b.nav) {
		if item.Page != "" && b.pages[item.Page] == nil {
			b.warnf("nav entry %q names %s, which is not in the docs directory", item.Title, item.Page)
		}
	}
	return nil
}

// render turns every page's Markdown into HTML, titles and tables of
// contents.
func (b *site) render(ctx context.Context) error {
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.Footnote, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		goldmark.WithRendererOptions(html.WithUnsafe()),
	)
	for _, src := range b.order {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := b.pages[src]
		data, err := os.ReadFile(filepath.Join(b.docsDir, filepath.FromSlash(src)))
		if err != nil {
			return err
		}
		doc := md.Parser().Parse(text.NewReader(data))
		p.Title, p.TOC = headings(doc, data)
		for _, broken := range rewriteLinks(doc, p, b.pages) {
			b.warnf("%s links to %s, which is not in the docs directory", src, broken)
		}
		var buf bytes.Buffer
		if err := md.Renderer().Render(&buf, data, doc); err != nil {
			return fmt.Errorf("%s: %v", src, err)
		}
		p.HTML = template.HTML(buf.String())
		if p.Title == "" {
			p.Title = titleFromPath(src)
		}
	}
	for _, item := range flattenNav(b.nav) {
		if item.Title == "" && item.Page != "" && b.pages[item.Page] != nil {
			item.Title = b.pages[item.Page].Title
		}
	}
	return nil
}

// write replaces the output directory with the rendered pages and the
// docs directory's other files.
func (b *site) write() error {
	o := b.o
	if err := os.RemoveAll(o.Out); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	if b.only == "" {
		if err := copyAssets(b.docsDir, o.Out); err != nil {
			return err
		}
	}
	linear := linearPages(b.nav, b.pages, b.order)
	for i, src := range b.order {
		p := b.pages[src]
		var prev, next *mdPage
		if idx := indexOf(linear, p); idx >= 0 {
			if idx > 0 {
				prev = linear[idx-1]
			}
			if idx+1 < len(linear) {
				next = linear[idx+1]
			}
		}
		nav, homeListed := b.nav, true
		if i := b.homeEntry(); i >= 0 {
			nav, homeListed = slices.Delete(slices.Clone(nav), i, i+1), false
		}
		var buf bytes.Buffer
		if err := pageTemplate.Execute(&buf, pageData{
			SiteName: b.siteName, Lang: o.Language, Page: p, Nav: renderNav(nav, p, b.pages),
			Prev: link(p, prev), Next: link(p, next), Home: relURL(p.Out, "index.html"),
			AtHome: !homeListed && p.Out == "index.html",
		}); err != nil {
			return err
		}
		dst := filepath.Join(o.Out, filepath.FromSlash(p.Out))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
			return err
		}
		b.logf("INFO: [%d/%d] %s -> %s", i+1, len(b.order), src, p.Out)
	}
	return nil
}

// homeEntry is the index in the top level of the navigation of the home
// page's entry when it only repeats the sidebar's first line (its title is
// the site's name, as a docs/ folder's index.md starting with the
// project's name gives), -1 otherwise. The sidebar leaves it out: the
// site's name above it already links to the home page.
func (b *site) homeEntry() int {
	for i, it := range b.nav {
		if p := b.pages[it.Page]; p != nil && p.Out == "index.html" && len(it.Children) == 0 &&
			strings.TrimSpace(it.Title) == strings.TrimSpace(b.siteName) {
			return i
		}
	}
	return -1
}

// mkdocsConfig is the part of mkdocs.yml the built-in builder reads.
type mkdocsConfig struct {
	SiteName string
	DocsDir  string
	Nav      any
}

func readMkDocsConfig(file string) (*mkdocsConfig, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	v, err := rtdconfig.ParseYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Base(file), err)
	}
	c := &mkdocsConfig{}
	if m, ok := v.(*rtdconfig.Map); ok {
		get := func(k string) any { x, _ := m.Get(k); return x }
		if s, ok := get("site_name").(string); ok {
			c.SiteName = s
		}
		if s, ok := get("docs_dir").(string); ok {
			c.DocsDir = s
		}
		c.Nav = get("nav")
	}
	return c, nil
}

// parseNav reads mkdocs' nav: a list whose entries are a page path, a
// {title: path-or-URL} mapping, or a {title: [entries]} section.
func parseNav(v any) ([]*navItem, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("expected a list")
	}
	var out []*navItem
	for _, e := range list {
		switch x := e.(type) {
		case string:
			out = append(out, pageItem("", x))
		case *rtdconfig.Map:
			for _, title := range x.Keys() {
				val, _ := x.Get(title)
				switch val := val.(type) {
				case string:
					out = append(out, pageItem(title, val))
				case []any:
					children, err := parseNav(val)
					if err != nil {
						return nil, err
					}
					out = append(out, &navItem{Title: title, Children: children})
				default:
					return nil, fmt.Errorf("entry %q: expected a path or a list", title)
				}
			}
		default:
			return nil, fmt.Errorf("unexpected entry %s", rtdconfig.PyRepr(e))
		}
	}
	return out, nil
}

func pageItem(title, target string) *navItem {
	if u, err := url.Parse(target); err == nil && u.Scheme != "" {
		return &navItem{Title: title, URL: target}
	}
	return &navItem{Title: title, Page: path.Clean(strings.TrimPrefix(filepath.ToSlash(target), "/"))}
}

// walkSiteFiles calls fn with the slash path (relative to dir) of every
// regular file under dir, leaving out hidden entries and build output.
func walkSiteFiles(dir string, fn func(rel string) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if p != dir && (strings.HasPrefix(name, ".") || name == "_build") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return fn(filepath.ToSlash(rel))
	})
}

// markdownFiles lists the Markdown files of the docs directory.
func markdownFiles(dir string) ([]string, error) {
	var out []string
	err := walkSiteFiles(dir, func(rel string) error {
		if rtdconfig.IsMarkdownName(rel) {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// isIndexName reports whether a page is its directory's index.
func isIndexName(src string) bool {
	base := strings.ToLower(strings.TrimSuffix(path.Base(src), path.Ext(src)))
	return base == "index" || base == "readme"
}

// sortPages orders pages by directory, each directory's index first.
func sortPages(srcs []string) []string {
	out := append([]string(nil), srcs...)
	sort.Slice(out, func(i, j int) bool {
		di, dj := path.Dir(out[i]), path.Dir(out[j])
		if di != dj {
			if di == "." || dj == "." {
				return di == "."
			}
			return di < dj
		}
		ii, ij := isIndexName(out[i]), isIndexName(out[j])
		if ii != ij {
			return ii
		}
		return out[i] < out[j]
	})
	return out
}

// outputPath maps a page to its HTML file: `a/b.md` → `a/b.html`, an
// `index.md` (or a README.md without an index.md beside it) → `index.html`.
func outputPath(src string, all []string) string {
	dir := path.Dir(src)
	base := strings.TrimSuffix(path.Base(src), path.Ext(src))
	lower := strings.ToLower(base)
	if lower == "index" {
		return path.Join(dir, "index.html")
	}
	if lower == "readme" {
		hasIndex := false
		for _, o := range all {
			if path.Dir(o) == dir && strings.ToLower(strings.TrimSuffix(path.Base(o), path.Ext(o))) == "index" {
				hasIndex = true
			}
		}
		if !hasIndex {
			return path.Join(dir, "index.html")
		}
	}
	return path.Join(dir, base+".html")
}

// autoNav is the navigation of a site without a mkdocs nav: each
// directory's pages, then its subdirectories as sections.
func autoNav(order []string) []*navItem {
	root := &navItem{}
	sections := map[string]*navItem{".": root}
	var section func(dir string) *navItem
	section = func(dir string) *navItem {
		if s := sections[dir]; s != nil {
			return s
		}
		parent := section(path.Dir(dir))
		s := &navItem{Title: titleFromPath(path.Base(dir))}
		parent.Children = append(parent.Children, s)
		sections[dir] = s
		return s
	}
	for _, src := range order {
		s := section(path.Dir(src))
		s.Children = append(s.Children, &navItem{Page: src})
	}
	return root.Children
}

func flattenNav(items []*navItem) []*navItem {
	var out []*navItem
	for _, it := range items {
		out = append(out, it)
		out = append(out, flattenNav(it.Children)...)
	}
	return out
}

// linearPages is the reading order for previous/next links: the nav's
// pages, then pages the nav leaves out.
func linearPages(nav []*navItem, pages map[string]*mdPage, order []string) []*mdPage {
	seen := map[string]bool{}
	var out []*mdPage
	for _, it := range flattenNav(nav) {
		if p := pages[it.Page]; p != nil && !seen[it.Page] {
			seen[it.Page] = true
			out = append(out, p)
		}
	}
	for _, src := range order {
		if !seen[src] {
			out = append(out, pages[src])
		}
	}
	return out
}

func indexOf(list []*mdPage, p *mdPage) int {
	for i, x := range list {
		if x == p {
			return i
		}
	}
	return -1
}

// titleFromPath makes a title from a file or directory name.
func titleFromPath(p string) string {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if isIndexName(base) {
		return "Home"
	}
	base = strings.NewReplacer("-", " ", "_", " ").Replace(base)
	if base == "" {
		return p
	}
	return strings.ToUpper(base[:1]) + base[1:]
}

// headings returns the page title (its first level-1 heading) and its
// table of contents (levels 2 and 3).
func headings(doc ast.Node, src []byte) (string, []tocEntry) {
	title := ""
	var toc []tocEntry
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		t := plainText(h, src)
		id := ""
		if v, ok := h.AttributeString("id"); ok {
			if b, ok := v.([]byte); ok {
				id = string(b)
			}
		}
		switch {
		case h.Level == 1 && title == "":
			title = t
		case h.Level == 2 || h.Level == 3:
			toc = append(toc, tocEntry{Level: h.Level, ID: id, Title: t})
		}
		return ast.WalkSkipChildren, nil
	})
	return title, toc
}

// plainText is the text of a node without markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for ch := t.FirstChild(); ch != nil; ch = ch.NextSibling() {
				if tx, ok := ch.(*ast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// rewriteLinks points relative links to Markdown pages at their HTML
// files and returns the Markdown targets that do not exist.
func rewriteLinks(doc ast.Node, p *mdPage, pages map[string]*mdPage) []string {
	var broken []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		l, ok := n.(*ast.Link)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		u, err := url.Parse(string(l.Destination))
		if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || !rtdconfig.IsMarkdownName(u.Path) {
			return ast.WalkContinue, nil
		}
		target := path.Clean(path.Join(path.Dir(p.Src), u.Path))
		if strings.HasPrefix(u.Path, "/") {
			target = path.Clean(strings.TrimPrefix(u.Path, "/"))
		}
		tp := pages[target]
		if tp == nil {
			broken = append(broken, u.Path)
			return ast.WalkContinue, nil
		}
		dest := relURL(p.Out, tp.Out)
		if u.Fragment != "" {
			dest += "#" + u.Fragment
		}
		l.Destination = []byte(dest)
		return ast.WalkContinue, nil
	})
	return broken
}

// relURL is the relative URL from the page at from to the file at to
// (both slash paths relative to the site root).
func relURL(from, to string) string {
	rel, err := filepath.Rel(path.Dir(from), to)
	if err != nil {
		return to
	}
	return filepath.ToSlash(rel)
}

// copyAssets copies every non-Markdown file of the docs directory (images,
// stylesheets) into the site.
func copyAssets(docsDir, out string) error {
	return walkSiteFiles(docsDir, func(rel string) error {
		if rtdconfig.IsMarkdownName(rel) {
			return nil
		}
		dst := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(docsDir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}

// navLink is a rendered navigation entry.
type navLink struct {
	Title    string
	URL      string
	Current  bool
	Children []navLink
}

func renderNav(items []*navItem, current *mdPage, pages map[string]*mdPage) []navLink {
	var out []navLink
	for _, it := range items {
		l := navLink{Title: it.Title}
		switch {
		case it.URL != "":
			l.URL = it.URL
		case it.Page != "":
			p := pages[it.Page]
			if p == nil {
				continue
			}
			l.URL = relURL(current.Out, p.Out)
			l.Current = p == current
			if l.Title == "" {
				l.Title = p.Title
			}
		}
		l.Children = renderNav(it.Children, current, pages)
		out = append(out, l)
	}
	return out
}

type pageLink struct {
	Title string
	URL   string
}

func link(from, to *mdPage) *pageLink {
	if to == nil {
		return nil
	}
	return &pageLink{Title: to.Title, URL: relURL(from.Out, to.Out)}
}

type pageData struct {
	SiteName   string
	Lang       string
	Page       *mdPage
	Nav        []navLink
	Prev, Next *pageLink
	Home       string
	// AtHome: the page is the home page and the navigation does not list
	// it, so the site's name is marked as the current page.
	AtHome bool
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="docsd built-in Markdown builder">
<title>{{if ne .Page.Title .SiteName}}{{.Page.Title}} — {{end}}{{.SiteName}}</title>
<style>
body{margin:0;font:16px/1.6 system-ui,sans-serif;color:#222;display:flex;min-height:100vh}
nav.site{width:16rem;flex:none;background:#f4f5f7;padding:1rem;border-right:1px solid #ddd}
nav.site ul{list-style:none;padding-left:1rem;margin:.2rem 0}nav.site>ul{padding-left:0}
nav.site a{color:#2a5db0;text-decoration:none}nav.site a.current{font-weight:bold;color:#222}
main{flex:1;max-width:50rem;padding:1rem 2rem}
nav.toc{width:14rem;flex:none;padding:1rem;font-size:.9rem}nav.toc ul{list-style:none;padding-left:0}
nav.toc li.h3{padding-left:1rem}
pre{background:#f6f8fa;padding:.8rem;overflow:auto}code{background:#f6f8fa}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem}
nav.pager{display:flex;justify-content:space-between;border-top:1px solid #ddd;margin-top:2rem;padding-top:1rem}
</style>
</head>
<body>
<nav class="site" aria-label="Site">
<p><a href="{{.Home}}"{{if .AtHome}} class="current" aria-current="page"{{end}}><strong>{{.SiteName}}</strong></a></p>
{{template "nav" .Nav}}
</nav>
<main>
{{.Page.HTML}}
<nav class="pager" aria-label="Previous and next pages">
<span>{{with .Prev}}<a rel="prev" href="{{.URL}}">&larr; {{.Title}}</a>{{end}}</span>
<span>{{with .Next}}<a rel="next" href="{{.URL}}">{{.Title}} &rarr;</a>{{end}}</span>
</nav>
</main>
{{with .Page.TOC}}<nav class="toc" aria-label="Table of contents">
<p><strong>On this page</strong></p>
<ul>{{range .}}<li class="h{{.Level}}"><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ul>
</nav>{{end}}
</body>
</html>
{{define "nav"}}<ul>{{range .}}<li>{{if .URL}}<a href="{{.URL}}"{{if .Current}} class="current" aria-current="page"{{end}}>{{.Title}}</a>{{else}}<span>{{.Title}}</span>{{end}}{{with .Children}}{{template "nav" .}}{{end}}</li>{{end}}</ul>{{end}}
`))
