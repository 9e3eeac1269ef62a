package store

import (
	"context"
	"sort"
	"strings"

	"docsd/internal/errs"
)

// IndexPage is one HTML page of a version as the search indexer hands it to
// the store. The *Words fields are the folded words package search computed
// from the texts; the store keeps them in the engine's full-text structure
// and never splits text itself.
type IndexPage struct {
	Path       string
	Doctype    string
	Rank       int
	Title      string
	TitleWords []string
	Sections   []IndexSection
	// Postings are the page's words with its impact for each, one per
	// word.
	Postings []Posting
}

// IndexSection is one section of an IndexPage, in page order.
type IndexSection struct {
	Anchor, Title, Content   string
	TitleWords, ContentWords []string
	// Definition marks an API object's signature and description.
	Definition bool
	// Labels are the section's other anchors, separated by spaces.
	Labels string
}

// SearchPage is an indexed page read back for scoring and display.
type SearchPage struct {
	ID        int64  `db:"id"`
	ProjectID int64  `db:"project_id"`
	VersionID int64  `db:"version_id"`
	Path      string `db:"path"`
	Doctype   string `db:"doctype"`
	Rank      int    `db:"rank"`
	Title     string `db:"title"`
	Sections  []SearchSection
}

// SearchSection is one stored section of a SearchPage.
type SearchSection struct {
	PageID   int64  `db:"page_id"`
	Position int    `db:"position"`
	Anchor   string `db:"anchor"`
	Title    string `db:"title"`
	Content  string `db:"content"`
	// Definition marks an API object's signature and description.
	Definition bool `db:"definition"`
	// Labels are the section's other anchors, separated by spaces.
	Labels string `db:"labels"`
}

// SearchTerm is one condition for FindSearchCandidates: words that occur
// together, each matched as a prefix when Prefix is set.
type SearchTerm struct {
	Words  []string
	Prefix bool
}

// ReplaceSearchIndex replaces every index entry of the version with pages,
// in one transaction: a search sees the old entries or the new ones.
func (s *Store) ReplaceSearchIndex(ctx context.Context, projectID, versionID int64, pages []IndexPage) error {
	return s.InTx(ctx, "store.ReplaceSearchIndex", func(tx *Tx) error {
		return tx.replaceSearchIndex(ctx, projectID, versionID, pages)
	})
}

func (tx *Tx) replaceSearchIndex(ctx context.Context, projectID, versionID int64, pages []IndexPage) error {
	if err := tx.deleteSearchIndex(ctx, versionID); err != nil {
		return err
	}
	for i := range pages {
		if err := checkIndexPage(&pages[i]); err != nil {
			return err
		}
	}
	var ids []int64
	var err error
	if tx.s.dialect == Postgres {
		ids, err = tx.insertSearchPagesPostgres(ctx, projectID, versionID, pages)
	} else {
		ids = make([]int64, len(pages))
		for i := range pages {
			if ids[i], err = tx.insertSearchPageSQLite(ctx, projectID, versionID, &pages[i]); err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	return tx.insertPostings(ctx, versionID, pages, ids)
}

// checkIndexPage refuses a page whose text is not valid UTF-8.
func checkIndexPage(p *IndexPage) error {
	if !storable(p.Path) || !storable(p.Title) {
		return errs.E(errs.Invalid, "store.ReplaceSearchIndex", "page text is not valid UTF-8")
	}
	for _, sec := range p.Sections {
		if !storable(sec.Anchor) || !storable(sec.Title) || !storable(sec.Content) || !storable(sec.Labels) {
			return errs.E(errs.Invalid, "store.ReplaceSearchIndex", "section text is not valid UTF-8")
		}
	}
	return nil
}

// insertSearchPagesPostgres writes the pages and their sections in
// multi-row INSERTs and returns the pages' ids, which it takes from the
// pages' sequence in one statement first.
func (tx *Tx) insertSearchPagesPostgres(ctx context.Context, projectID, versionID int64, pages []IndexPage) ([]int64, error) {
	ids := []int64{}
	if len(pages) == 0 {
		return ids, nil
	}
	if err := tx.sel(ctx, &ids, `SELECT nextval(pg_get_serial_sequence('search_pages', 'id')) FROM generate_series(1, ?)`, len(pages)); err != nil {
		return nil, err
	}
	pageRows := tx.batchInserter(ctx, "search_pages", "id, project_id, version_id, path, doctype, rank, title, words")
	defer pageRows.close()
	for i := range pages {
		p := &pages[i]
		if err := pageRows.add(ids[i], projectID, versionID, p.Path, p.Doctype, p.Rank, p.Title, tsvectorLiteral(p.TitleWords)); err != nil {
			return nil, err
		}
	}
	if err := pageRows.flush(); err != nil {
		return nil, err
	}
	secRows := tx.batchInserter(ctx, "search_sections", "page_id, position, anchor, title, content, definition, labels, words")
	defer secRows.close()
	for i := range pages {
		for j, sec := range pages[i].Sections {
			words := append(append([]string{}, sec.TitleWords...), sec.ContentWords...)
			if err := secRows.add(ids[i], j, sec.Anchor, sec.Title, sec.Content, sec.Definition, sec.Labels, tsvectorLiteral(words)); err != nil {
				return nil, err
			}
		}
	}
	return ids, secRows.flush()
}

// ReplaceStaleSearchIndex is ReplaceSearchIndex for a version not indexed
// in SearchIndexFormat yet; it reports whether it replaced the entries
// (false when the version was indexed in the meantime, by a publish).
func (s *Store) ReplaceStaleSearchIndex(ctx context.Context, projectID, versionID int64, pages []IndexPage) (bool, error) {
	replaced := false
	err := s.InTx(ctx, "store.ReplaceStaleSearchIndex", func(tx *Tx) error {
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM search_indexed WHERE version_id = ? AND format = ?`, versionID, SearchIndexFormat); err != nil || n > 0 {
			return err
		}
		replaced = true
		return tx.replaceSearchIndex(ctx, projectID, versionID, pages)
	})
	return replaced, err
}

// DeleteSearchIndex deletes every index entry of the version.
func (s *Store) DeleteSearchIndex(ctx context.Context, versionID int64) error {
	return s.InTx(ctx, "store.DeleteSearchIndex", func(tx *Tx) error {
		return tx.deleteSearchIndex(ctx, versionID)
	})
}

func (tx *Tx) deleteSearchIndex(ctx context.Context, versionID int64) error {
	if err := tx.deletePostings(ctx, versionID); err != nil {
		return err
	}
	// Sections go first and explicitly so that SQLite's FTS triggers run
	// row by row inside this transaction.
	if _, err := tx.exec(ctx, `DELETE FROM search_sections WHERE page_id IN (SELECT id FROM search_pages WHERE version_id = ?)`, versionID); err != nil {
		return err
	}
	_, err := tx.exec(ctx, `DELETE FROM search_pages WHERE version_id = ?`, versionID)
	return err
}

// insertSearchPageSQLite writes a page and its sections and returns its
// id.
func (tx *Tx) insertSearchPageSQLite(ctx context.Context, projectID, versionID int64, p *IndexPage) (int64, error) {
	pageID, err := tx.insert(ctx, `INSERT INTO search_pages (project_id, version_id, path, doctype, rank, title)
		VALUES (?, ?, ?, ?, ?, ?)`, projectID, versionID, p.Path, p.Doctype, p.Rank, p.Title)
	if err == nil {
		_, err = tx.exec(ctx, `INSERT INTO search_page_fts (rowid, words) VALUES (?, ?)`, pageID, strings.Join(p.TitleWords, " "))
	}
	if err != nil {
		return 0, err
	}
	return pageID, tx.insertSectionsSQLite(ctx, pageID, p.Sections)
}

// insertSectionsSQLite writes a page's sections and their FTS rows in
// multi-row INSERTs. The rows of one INSERT get consecutive rowids (the
// writer is alone in its transaction), the last one reported by the
// statement, which the FTS rows take.
func (tx *Tx) insertSectionsSQLite(ctx context.Context, pageID int64, secs []IndexSection) error {
	for start := 0; start < len(secs); start += sectionBatch {
		batch := secs[start:min(start+sectionBatch, len(secs))]
		rows := make([]string, len(batch))
		args := make([]any, 0, 7*len(batch))
		for i, sec := range batch {
			rows[i] = "(?, ?, ?, ?, ?, ?, ?)"
			args = append(args, pageID, start+i, sec.Anchor, sec.Title, sec.Content, sec.Definition, sec.Labels)
		}
		res, err := tx.exec(ctx, `INSERT INTO search_sections (page_id, position, anchor, title, content, definition, labels) VALUES `+
			strings.Join(rows, ", "), args...)
		if err != nil {
			return err
		}
		last, err := res.LastInsertId()
		if err != nil {
			return err
		}
		first := last - int64(len(batch)) + 1
		args = args[:0]
		for i, sec := range batch {
			rows[i] = "(?, ?, ?)"
			args = append(args, first+int64(i), strings.Join(sec.TitleWords, " "), strings.Join(sec.ContentWords, " "))
		}
		if _, err := tx.exec(ctx, `INSERT INTO search_section_fts (rowid, title, content) VALUES `+strings.Join(rows, ", "), args...); err != nil {
			return err
		}
	}
	return nil
}

// sectionBatch is how many sections one INSERT writes.
const sectionBatch = 200

// maxTsvectorBytes bounds the size of one PostgreSQL tsvector, which must
// stay under 1 MiB (each lexeme costs its length plus an entry of a few
// bytes); words past it are not indexed there. Only sections of tens of
// thousands of distinct words reach it.
const maxTsvectorBytes = 900 << 10

// tsvectorLiteral is the tsvector input text holding words as lexemes,
// without positions: PostgreSQL matching only has to find candidates, and
// package search checks phrases itself. Words are letters and digits
// only, but quotes and backslashes are escaped all the same.
func tsvectorLiteral(words []string) string {
	set := make(map[string]bool, len(words))
	uniq := make([]string, 0, len(words))
	for _, w := range words {
		if w != "" && !set[w] {
			set[w] = true
			uniq = append(uniq, w)
		}
	}
	sort.Strings(uniq)
	var b strings.Builder
	size := 0
	for i, w := range uniq {
		if size += len(w) + 8; size > maxTsvectorBytes {
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(quoteLexeme(w))
	}
	return b.String()
}

// quoteLexeme quotes w as a tsvector lexeme: in single quotes, with quotes
// doubled and backslashes escaped.
func quoteLexeme(w string) string {
	if !strings.ContainsAny(w, `'\`) {
		return "'" + w + "'"
	}
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(w); i++ {
		switch w[i] {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteByte(w[i])
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// FindSearchCandidates returns, in id order, the pages of the given
// versions whose title or a section contains at least one of terms and
// whose title and sections contain none of exclude. It is the engines'
// half of matching (FTS5 on SQLite, tsvector on PostgreSQL): the
// result holds every page that matches, and package search decides on each
// (phrases, required terms) itself. Exclude must only hold terms an engine
// matches exactly: single words or prefixes.
func (s *Store) FindSearchCandidates(ctx context.Context, versionIDs []int64, terms, exclude []SearchTerm) ([]int64, error) {
	const op = "store.FindSearchCandidates"
	ids := []int64{}
	if len(versionIDs) == 0 || len(terms) == 0 {
		return ids, nil
	}
	// On SQLite the FTS tables drive the joins (CROSS JOIN fixes the
	// order), so a rare word reads a few rows, not every section.
	sectionPages := `SELECT sec.page_id FROM (SELECT rowid AS id FROM search_section_fts WHERE search_section_fts MATCH ?) m
		CROSS JOIN search_sections sec ON sec.id = m.id`
	contains := func(expr string) (string, []any) {
		if s.dialect == Postgres {
			// No index on the words: the versions' pages are read, and
			// each page's sections by its index.
			return `(p.words @@ CAST(? AS tsquery) OR EXISTS
				(SELECT 1 FROM search_sections sec WHERE sec.page_id = p.id AND sec.words @@ CAST(? AS tsquery)))`, []any{expr, expr}
		}
		return `(p.id IN (SELECT rowid FROM search_page_fts WHERE search_page_fts MATCH ?) OR p.id IN (` + sectionPages + `))`, []any{expr, expr}
	}
	from := ` FROM search_pages p`
	var args []any
	w := &where{}
	if s.dialect == Postgres {
		c, a := contains(s.matchText(terms))
		w.add(c, a...)
	} else {
		expr := s.matchText(terms)
		from = ` FROM (SELECT rowid AS page_id FROM search_page_fts WHERE search_page_fts MATCH ? UNION ` + sectionPages + `) c
			CROSS JOIN search_pages p ON p.id = c.page_id`
		args = []any{expr, expr}
	}
	w.add("p.version_id IN (?)", versionIDs)
	if len(exclude) > 0 {
		c, a := contains(s.matchText(exclude))
		w.add("NOT "+c, a...)
	}
	err := s.readAt(ctx).selIn(ctx, &ids, `SELECT p.id`+from+w.String()+` ORDER BY p.id`, append(args, w.args...)...)
	return ids, classify(op, err)
}

// matchText is terms (any of them) in the dialect's query language.
func (s *Store) matchText(terms []SearchTerm) string {
	if s.dialect == Postgres {
		return tsqueryText(terms)
	}
	return fts5Text(terms)
}

// fts5Text is terms as an FTS5 expression: each term a quoted string
// (a phrase when it has several words), or for prefixes a phrase of
// quoted words each marked `*` and joined by +; terms joined by OR.
func fts5Text(terms []SearchTerm) string {
	parts := make([]string, 0, len(terms))
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	for _, t := range terms {
		if !t.Prefix {
			parts = append(parts, quote(strings.Join(t.Words, " ")))
			continue
		}
		ws := make([]string, len(t.Words))
		for i, w := range t.Words {
			ws[i] = quote(w) + " *"
		}
		parts = append(parts, strings.Join(ws, " + "))
	}
	return strings.Join(parts, " OR ")
}

// tsqueryText is terms as tsquery input: a phrase's words joined by & (the
// index keeps no positions), `:*` marking prefixes, terms joined by |.
func tsqueryText(terms []SearchTerm) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		ws := make([]string, len(t.Words))
		for i, w := range t.Words {
			ws[i] = quoteLexeme(w)
			if t.Prefix {
				ws[i] += ":*"
			}
		}
		parts = append(parts, "("+strings.Join(ws, " & ")+")")
	}
	return strings.Join(parts, " | ")
}

// searchChunk bounds the ids of one IN list.
const searchChunk = 500

// FindSearchPages returns the pages with the given ids, in the order of
// ids (unknown ids are left out), without their sections.
func (s *Store) FindSearchPages(ctx context.Context, ids []int64) ([]*SearchPage, error) {
	const op = "store.FindSearchPages"
	byID := make(map[int64]*SearchPage, len(ids))
	for start := 0; start < len(ids); start += searchChunk {
		chunk := ids[start:min(start+searchChunk, len(ids))]
		var pages []*SearchPage
		if err := s.readAt(ctx).selIn(ctx, &pages, `SELECT id, project_id, version_id, path, doctype, rank, title
			FROM search_pages WHERE id IN (?)`, chunk); err != nil {
			return nil, classify(op, err)
		}
		for _, p := range pages {
			byID[p.ID] = p
		}
	}
	out := make([]*SearchPage, 0, len(ids))
	for _, id := range ids {
		if p := byID[id]; p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// FindSearchSections returns the sections of the versions' pages that
// contain at least one of terms, ordered by page id and position. A
// section left out contains none of the terms, so a page can be judged on
// its title and these sections alone.
func (s *Store) FindSearchSections(ctx context.Context, versionIDs []int64, terms []SearchTerm) ([]SearchSection, error) {
	const op = "store.FindSearchSections"
	secs := []SearchSection{}
	if len(versionIDs) == 0 || len(terms) == 0 {
		return secs, nil
	}
	var query string
	expr := s.matchText(terms)
	if s.dialect == Postgres {
		query = `SELECT sec.page_id, sec.position, sec.anchor, sec.title, sec.content, sec.definition, sec.labels
			FROM search_sections sec JOIN search_pages p ON p.id = sec.page_id
			WHERE p.version_id IN (?) AND sec.words @@ CAST(? AS tsquery) ORDER BY sec.page_id, sec.position`
	} else {
		// The FTS table drives the joins (see FindSearchCandidates).
		query = `SELECT sec.page_id, sec.position, sec.anchor, sec.title, sec.content, sec.definition, sec.labels
			FROM (SELECT rowid AS id FROM search_section_fts WHERE search_section_fts MATCH ?) m
			CROSS JOIN search_sections sec ON sec.id = m.id CROSS JOIN search_pages p ON p.id = sec.page_id
			WHERE p.version_id IN (?) ORDER BY sec.page_id, sec.position`
		err := s.readAt(ctx).selIn(ctx, &secs, query, expr, versionIDs)
		return secs, classify(op, err)
	}
	err := s.readAt(ctx).selIn(ctx, &secs, query, versionIDs, expr)
	return secs, classify(op, err)
}

// CountSearchPages returns how many pages the version has in the index.
func (s *Store) CountSearchPages(ctx context.Context, versionID int64) (int, error) {
	var n int
	err := s.readAt(ctx).get(ctx, &n, `SELECT COUNT(*) FROM search_pages WHERE version_id = ?`, versionID)
	return n, classify("store.CountSearchPages", err)
}

// CountSearchPagesOf returns how many pages the versions have in the index.
func (s *Store) CountSearchPagesOf(ctx context.Context, versionIDs []int64) (int, error) {
	var n int
	if len(versionIDs) == 0 {
		return 0, nil
	}
	err := s.readAt(ctx).getIn(ctx, &n, `SELECT COUNT(*) FROM search_pages WHERE version_id IN (?)`, versionIDs)
	return n, classify("store.CountSearchPagesOf", err)
}
