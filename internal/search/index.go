package search

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"sort"
	"strings"

	"docsd/store"
)

// Trees is where the indexer reads published HTML. artifacts.Storage
// implements it.
type Trees interface {
	// HTML returns the version's published tree (NotFound when nothing was
	// published).
	HTML(ctx context.Context, project, version string) (fs.FS, error)
}

// Indexer fills the search index from published trees.
type Indexer struct {
	Store  *store.Store
	Trees  Trees
	Logger *slog.Logger
}

// maxFileBytes is the largest HTML file indexed.
const maxFileBytes = 8 << 20

// Settings are a build's `search` configuration: path patterns of files
// not indexed, and the rank of the files each pattern matches.
type Settings struct {
	Ignore  []string
	Ranking []RankRule // in configuration order; the last match wins
}

// RankRule gives the pages matching Pattern a rank from -10 to 10.
type RankRule struct {
	Pattern string
	Rank    int
}

// defaultIgnore is search.ignore when the configuration does not give it.
var defaultIgnore = []string{"search.html", "search/index.html", "404.html", "404/index.html"}

// SettingsFromConfig reads the `search` key and the `doctype` of a build's
// stored configuration (JSON, as builds.config holds it). Missing or
// malformed parts take their defaults; the doctype is "" when absent.
func SettingsFromConfig(configJSON string) (Settings, string) {
	set := Settings{Ignore: defaultIgnore}
	var cfg struct {
		Doctype string `json:"doctype"`
		Search  struct {
			Ignore  *[]string       `json:"ignore"`
			Ranking json.RawMessage `json:"ranking"`
		} `json:"search"`
	}
	if json.Unmarshal([]byte(configJSON), &cfg) != nil {
		return set, ""
	}
	if cfg.Search.Ignore != nil {
		set.Ignore = *cfg.Search.Ignore
	}
	set.Ranking = rankingInOrder(cfg.Search.Ranking)
	return set, cfg.Doctype
}

// rankingInOrder decodes a JSON object of pattern → rank keeping the
// object's key order, which decides which rule wins.
func rankingInOrder(raw json.RawMessage) []RankRule {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var rules []RankRule
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return rules
		}
		key, _ := t.(string)
		var rank int
		if err := dec.Decode(&rank); err != nil {
			return rules
		}
		rules = append(rules, RankRule{Pattern: key, Rank: rank})
	}
	return rules
}

// IndexVersion replaces the version's index entries with its published
// tree, in one transaction. configJSON is the stored configuration of the
// build that published it. External versions are never indexed.
func (ix *Indexer) IndexVersion(ctx context.Context, p *store.Project, v *store.Version, configJSON string) error {
	pages, err := ix.read(ctx, p, v, configJSON)
	if err != nil || pages == nil {
		return err
	}
	return ix.Store.ReplaceSearchIndex(ctx, p.ID, v.ID, pages)
}

// read returns the index pages of the version's published tree; nil for
// external versions.
func (ix *Indexer) read(ctx context.Context, p *store.Project, v *store.Version, configJSON string) ([]store.IndexPage, error) {
	if v.Type == store.External {
		return nil, nil
	}
	set, doctype := SettingsFromConfig(configJSON)
	if doctype == "" {
		doctype = p.DocumentationType
	}
	tree, err := ix.Trees.HTML(ctx, p.Slug, v.Slug)
	if err != nil {
		return nil, err
	}
	pages, err := ReadTree(ctx, tree, set, doctype)
	if pages == nil && err == nil {
		pages = []store.IndexPage{}
	}
	return pages, err
}

// UpgradeIndex indexes again, one version at a time, every version whose
// entries are older than the store's index format, from its published
// tree and the configuration config returns for it (that of its last
// successful build). Until a version is done, searches read its old
// entries; a version whose tree can't be read keeps them, and the failure
// is logged. It returns how many versions it indexed; docsd runs it in the
// background at start-up.
func (ix *Indexer) UpgradeIndex(ctx context.Context, config func(ctx context.Context, versionID int64) (string, error)) (int, error) {
	ids, err := ix.Store.FindSearchStaleVersions(ctx)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, id := range ids {
		err := ix.upgrade(ctx, id, config)
		if ctx.Err() != nil {
			return done, ctx.Err()
		}
		if err != nil {
			ix.logger().ErrorContext(ctx, "upgrading a version's search entries failed; its old entries answer searches", "version_id", id, "err", err)
			continue
		}
		done++
	}
	return done, nil
}

func (ix *Indexer) upgrade(ctx context.Context, versionID int64, config func(ctx context.Context, versionID int64) (string, error)) error {
	v, err := ix.Store.FindVersionByID(ctx, versionID)
	if err != nil {
		return err
	}
	p, err := ix.Store.FindProjectByID(ctx, v.ProjectID)
	if err != nil {
		return err
	}
	cfg, err := config(ctx, v.ID)
	if err != nil {
		return err
	}
	pages, err := ix.read(ctx, p, v, cfg)
	if err != nil || pages == nil {
		return err
	}
	_, err = ix.Store.ReplaceStaleSearchIndex(ctx, p.ID, v.ID, pages)
	return err
}

func (ix *Indexer) logger() *slog.Logger {
	if ix.Logger == nil {
		return slog.Default()
	}
	return ix.Logger
}

// Published is the hook the builder calls after publishing a successful
// build of an internal version: it indexes the new tree, and when that
// fails it logs the failure and deletes the version's old entries, so no
// result points at a page that may be gone. It never fails the build.
func (ix *Indexer) Published(ctx context.Context, p *store.Project, v *store.Version, configJSON string) {
	err := ix.IndexVersion(ctx, p, v, configJSON)
	if err == nil {
		return
	}
	logger := ix.logger()
	logger.ErrorContext(ctx, "search indexing failed", "project", p.Slug, "version", v.Slug, "err", err)
	if derr := ix.Store.DeleteSearchIndex(context.WithoutCancel(ctx), v.ID); derr != nil {
		logger.ErrorContext(ctx, "deleting stale search entries failed", "project", p.Slug, "version", v.Slug, "err", derr)
	}
}

// ReadTree splits every indexable page of a published tree, in path order:
// files ending in .html, not matched by an ignore pattern, at most
// maxFileBytes, that parse as HTML.
func ReadTree(ctx context.Context, tree fs.FS, set Settings, doctype string) ([]store.IndexPage, error) {
	ignore := compilePatterns(set.Ignore)
	ranking := make([]*regexp.Regexp, len(set.Ranking))
	for i, r := range set.Ranking {
		ranking[i] = compilePattern(r.Pattern)
	}
	var pages []store.IndexPage
	err := fs.WalkDir(tree, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable directory is skipped
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() || !strings.HasSuffix(name, ".html") || matchAny(ignore, name) {
			return nil
		}
		page, ok := readPage(tree, name)
		if !ok {
			return nil
		}
		page.Doctype = doctype
		for i, re := range ranking {
			if re != nil && re.MatchString(name) {
				page.Rank = min(max(set.Ranking[i].Rank, -10), 10)
			}
		}
		if page.Rank != 0 {
			page.Postings = postings(&page)
		}
		pages = append(pages, page)
		return nil
	})
	sort.Slice(pages, func(i, j int) bool { return pages[i].Path < pages[j].Path })
	return pages, err
}

// readPage parses one file; ok is false for files that are too large,
// unreadable or not HTML.
func readPage(tree fs.FS, name string) (store.IndexPage, bool) {
	f, err := tree.Open(name)
	if err != nil {
		return store.IndexPage{}, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > maxFileBytes {
		return store.IndexPage{}, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil || len(data) > maxFileBytes {
		return store.IndexPage{}, false
	}
	parsed, err := ParsePage(bytes.NewReader(data), name)
	if err != nil {
		return store.IndexPage{}, false
	}
	return ToIndexPage(name, parsed), true
}

// ToIndexPage turns a parsed page into the store's form, with the words the
// engines index and the page's postings (for rank 0; a page given another
// rank needs its postings computed again).
func ToIndexPage(path string, p *Page) store.IndexPage {
	ip := store.IndexPage{Path: path, Title: p.Title, TitleWords: Words(p.Title)}
	for _, s := range p.Sections {
		ip.Sections = append(ip.Sections, store.IndexSection{
			Anchor: s.ID, Title: s.Title, Content: s.Content, Definition: s.Definition, Labels: strings.Join(s.Labels, " "),
			TitleWords: Words(s.Title), ContentWords: Words(s.Content),
		})
	}
	ip.Postings = postings(&ip)
	return ip
}

// normalisePattern prefixes `/`, collapses `//`, `.` and `..` segments and
// removes the leading `/`; ok is false for a pattern that is empty after
// that or escapes the root.
func normalisePattern(p string) (string, bool) {
	clean := path.Clean("/" + p)
	if strings.Contains("/"+p+"/", "/../") {
		// path.Clean drops ".." at the root silently; it is refused.
		depth := 0
		for _, seg := range strings.Split(p, "/") {
			switch seg {
			case "..":
				depth--
			case "", ".":
			default:
				depth++
			}
			if depth < 0 {
				return "", false
			}
		}
	}
	clean = strings.TrimPrefix(clean, "/")
	return clean, clean != ""
}

func compilePatterns(ps []string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(ps))
	for _, p := range ps {
		if re := compilePattern(p); re != nil {
			out = append(out, re)
		}
	}
	return out
}

// compilePattern translates a Python fnmatch pattern (`*` also matches
// `/`; `?`; `[seq]`, `[!seq]`; case-sensitive) into a regexp; nil for an
// invalid pattern.
func compilePattern(p string) *regexp.Regexp {
	p, ok := normalisePattern(p)
	if !ok {
		return nil
	}
	var b strings.Builder
	b.WriteString(`^(?s:`)
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(p) && p[j] == '!' {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) {
				b.WriteString(`\[`)
				continue
			}
			set := p[i+1 : j]
			if strings.HasPrefix(set, "!") {
				set = "^" + set[1:]
			} else if strings.HasPrefix(set, "^") {
				set = `\` + set
			}
			b.WriteString("[" + strings.ReplaceAll(set, `\`, `\\`) + "]")
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString(`)$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}

func matchAny(res []*regexp.Regexp, name string) bool {
	for _, re := range res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}
