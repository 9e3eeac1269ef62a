package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lib/pq"

	"docsd/internal/errs"
)

// SearchIndexFormat is the format of the entries ReplaceSearchIndex
// writes. A version indexed in an older format (or before postings
// existed) is searched through the full-text tables until it is indexed
// again.
const SearchIndexFormat = 3

// Posting is one word of an IndexPage with the page's impact for it: how
// well the page answers that word alone, a non-negative integer computed
// by package search. Postings of a word are read best first.
type Posting struct {
	Word   string
	Impact int
}

// PagePosting is a page found in a word's postings.
type PagePosting struct {
	PageID int64
	Impact int
}

// SearchWord is a word of the indexed versions' dictionaries and how many
// of their pages hold it.
type SearchWord struct {
	Word  string `db:"word"`
	Pages int    `db:"pages"`
}

// postingBatch is how many rows one INSERT writes.
const postingBatch = 500

// postingSize is the bytes of one posting in a word's list: the impact
// (uint32) and the page id (uint64), big-endian. Lists are ordered best
// first: impact descending, then page id ascending (the indexer writes a
// version's pages in path order, the order results take on equal scores).
const postingSize = 12

// maxImpact is the largest impact a posting holds.
const maxImpact = math.MaxUint32

// A word's list is stored in blocks: block 0 holds its first
// firstBlockPostings postings, each further block blockGrowth times as
// many as the one before, so that reading the first n postings reads at
// most about blockGrowth·n of them, in few rows.
const (
	firstBlockPostings = 64
	blockGrowth        = 4
)

// blockPostings is how many postings block b holds (the last block of a
// list may hold fewer).
func blockPostings(b int) int {
	n := firstBlockPostings
	for range b {
		n *= blockGrowth
	}
	return n
}

// blocksFor is the last block to read for a list's first n postings.
func blocksFor(n int) int {
	b, held := 0, firstBlockPostings
	for held < n {
		b++
		held += blockPostings(b)
	}
	return b
}

// insertPostings writes the version's dictionary, each word's postings
// list in blocks and the top words of its prefixes, and marks the version
// indexed in SearchIndexFormat;
// pageIDs are the stored ids of pages. Rows are written in word order, so
// the tables' B-trees grow at their end.
func (tx *Tx) insertPostings(ctx context.Context, versionID int64, pages []IndexPage, pageIDs []int64) error {
	type row struct {
		impact int
		page   int64
	}
	byWord := map[string][]row{}
	for i := range pages {
		for _, p := range pages[i].Postings {
			if p.Word == "" || p.Impact < 0 || p.Impact > maxImpact || !storable(p.Word) {
				return errs.E(errs.Invalid, "store.ReplaceSearchIndex", "a posting has no word or an impact out of range")
			}
			byWord[p.Word] = append(byWord[p.Word], row{p.Impact, pageIDs[i]})
		}
	}
	words := make([]string, 0, len(byWord))
	for w := range byWord {
		words = append(words, w)
	}
	sort.Strings(words)
	dict := tx.batchInserter(ctx, "search_words", "version_id, word, pages")
	defer dict.close()
	lists := tx.batchInserter(ctx, "search_postings", "version_id, word, block, postings")
	defer lists.close()
	for _, w := range words {
		rows := byWord[w]
		sort.Slice(rows, func(i, j int) bool {
			if rows[i].impact != rows[j].impact {
				return rows[i].impact > rows[j].impact
			}
			return rows[i].page < rows[j].page
		})
		list := make([]byte, len(rows)*postingSize)
		for i, r := range rows {
			binary.BigEndian.PutUint32(list[i*postingSize:], uint32(r.impact))
			binary.BigEndian.PutUint64(list[i*postingSize+4:], uint64(r.page))
		}
		if err := dict.add(versionID, w, len(rows)); err != nil {
			return err
		}
		for b := 0; len(list) > 0; b++ {
			n := min(len(list), blockPostings(b)*postingSize)
			if err := lists.add(versionID, w, b, list[:n]); err != nil {
				return err
			}
			list = list[n:]
		}
	}
	if err := dict.flush(); err != nil {
		return err
	}
	if err := lists.flush(); err != nil {
		return err
	}
	counts := make([]int, len(words))
	for i, w := range words {
		counts[i] = len(byWord[w])
	}
	prefixes := tx.batchInserter(ctx, "search_prefixes", "version_id, prefix, words")
	defer prefixes.close()
	for _, r := range prefixRows(words, counts) {
		if err := prefixes.add(versionID, r.prefix, r.words); err != nil {
			return err
		}
	}
	if err := prefixes.flush(); err != nil {
		return err
	}
	_, err := tx.exec(ctx, `INSERT INTO search_indexed (version_id, format, pages) VALUES (?, ?, ?)`, versionID, SearchIndexFormat, len(pages))
	return err
}

// batchInserter writes rows to a table postingBatch at a time, through one
// prepared statement for the full batches.
type batchInserter struct {
	tx          *Tx
	ctx         context.Context
	table, cols string
	width       int
	args        []any
	full        *sql.Stmt
}

func (tx *Tx) batchInserter(ctx context.Context, table, cols string) *batchInserter {
	return &batchInserter{tx: tx, ctx: ctx, table: table, cols: cols, width: strings.Count(cols, ",") + 1}
}

func (b *batchInserter) statement(rows int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", b.width), ", ") + ")"
	return `INSERT INTO ` + b.table + ` (` + b.cols + `) VALUES ` + strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")
}

func (b *batchInserter) add(values ...any) error {
	b.args = append(b.args, values...)
	if len(b.args) < postingBatch*b.width {
		return nil
	}
	if b.full == nil {
		b.tx.noteWrite(b.statement(1))
		preparer, ok := b.tx.q.(interface {
			PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
		})
		if !ok {
			return b.flush()
		}
		stmt, err := preparer.PrepareContext(b.ctx, b.tx.q.Rebind(b.statement(postingBatch)))
		if err != nil {
			return err
		}
		b.full = stmt
	}
	b.tx.s.queries.Add(1)
	_, err := b.full.ExecContext(b.ctx, b.args...)
	b.args = b.args[:0]
	return err
}

// flush writes the rows not written yet.
func (b *batchInserter) flush() error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.tx.exec(b.ctx, b.statement(len(b.args)/b.width), b.args...)
	b.args = b.args[:0]
	return err
}

func (b *batchInserter) close() {
	if b.full != nil {
		b.full.Close()
	}
}

// deletePostings deletes the version's dictionary, its postings, its
// prefixes and its mark.
func (tx *Tx) deletePostings(ctx context.Context, versionID int64) error {
	for _, table := range []string{"search_words", "search_postings", "search_prefixes", "search_indexed"} {
		if _, err := tx.exec(ctx, `DELETE FROM `+table+` WHERE version_id = ?`, versionID); err != nil {
			return err
		}
	}
	return nil
}

// FindSearchIndexed returns the versions indexed in SearchIndexFormat
// among versionIDs, with their number of pages.
func (s *Store) FindSearchIndexed(ctx context.Context, versionIDs []int64) (map[int64]int, error) {
	out := map[int64]int{}
	if len(versionIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		VersionID int64 `db:"version_id"`
		Pages     int   `db:"pages"`
	}
	err := s.readAt(ctx).selIn(ctx, &rows, `SELECT version_id, pages FROM search_indexed WHERE version_id IN (?) AND format = ?`, versionIDs, SearchIndexFormat)
	for _, r := range rows {
		out[r.VersionID] = r.Pages
	}
	return out, classify("store.FindSearchIndexed", err)
}

// FindSearchStaleVersions returns the versions that have search entries
// but are not indexed in SearchIndexFormat, in id order.
func (s *Store) FindSearchStaleVersions(ctx context.Context) ([]int64, error) {
	ids := []int64{}
	err := s.readAt(ctx).sel(ctx, &ids, `SELECT DISTINCT p.version_id FROM search_pages p
		WHERE NOT EXISTS (SELECT 1 FROM search_indexed i WHERE i.version_id = p.version_id AND i.format = ?)
		ORDER BY p.version_id`, SearchIndexFormat)
	return ids, classify("store.FindSearchStaleVersions", err)
}

// topPrefixWords is how many words a row of search_prefixes holds: the
// words a prefix starts that most pages hold. A prefix that starts more
// words than that has a row; the words of one that has none are read from
// the dictionary.
const topPrefixWords = 64

// FindSearchWords returns the words of the versions' dictionaries that
// start with prefix, with the pages of all the versions that hold them,
// most pages first (then in word order): of each version, the
// topPrefixWords that most pages hold.
func (s *Store) FindSearchWords(ctx context.Context, versionIDs []int64, prefix string) ([]SearchWord, error) {
	words := []SearchWord{}
	if len(versionIDs) == 0 || prefix == "" {
		return words, nil
	}
	// One statement: per version, the prefix's row (kind 1) and the first
	// words of its range (kind 0), which only count when there is no row.
	end, bounded := prefixEnd(prefix)
	parts := make([]string, 0, 2*len(versionIDs))
	args := make([]any, 0, 6*len(versionIDs))
	for i, v := range versionIDs {
		parts = append(parts, `SELECT * FROM (SELECT version_id, 1 AS kind, words AS word, 0 AS pages
			FROM search_prefixes WHERE version_id = ? AND prefix = ?) p`+strconv.Itoa(i))
		args = append(args, v, prefix)
		q := `SELECT version_id, 0 AS kind, word, pages FROM search_words WHERE version_id = ? AND word >= ?`
		args = append(args, v, prefix)
		if bounded {
			q += ` AND word < ?`
			args = append(args, end)
		}
		parts = append(parts, `SELECT * FROM (`+q+` ORDER BY word LIMIT ?) w`+strconv.Itoa(i))
		args = append(args, topPrefixWords)
	}
	var rows []struct {
		VersionID int64  `db:"version_id"`
		Kind      int    `db:"kind"`
		Word      string `db:"word"`
		Pages     int    `db:"pages"`
	}
	if err := s.readAt(ctx).sel(ctx, &rows, strings.Join(parts, " UNION ALL "), args...); err != nil {
		return nil, classify("store.FindSearchWords", err)
	}
	listed := map[int64]bool{}
	for _, r := range rows {
		listed[r.VersionID] = listed[r.VersionID] || r.Kind == 1
	}
	byWord := map[string]int{}
	add := func(w string, pages int) {
		if !strings.HasPrefix(w, prefix) {
			return
		}
		if _, ok := byWord[w]; !ok {
			words = append(words, SearchWord{Word: w})
		}
		byWord[w] += pages
	}
	for _, r := range rows {
		switch {
		case r.Kind == 1:
			f := strings.Fields(r.Word)
			for i := 0; i+1 < len(f); i += 2 {
				n, err := strconv.Atoi(f[i+1])
				if err != nil {
					return nil, errs.E(errs.Internal, "store.FindSearchWords", "a prefix's words are malformed")
				}
				add(f[i], n)
			}
		case !listed[r.VersionID]:
			add(r.Word, r.Pages)
		}
	}
	for i := range words {
		words[i].Pages = byWord[words[i].Word]
	}
	sort.Slice(words, func(i, j int) bool {
		if words[i].Pages != words[j].Pages {
			return words[i].Pages > words[j].Pages
		}
		return words[i].Word < words[j].Word
	})
	return words, nil
}

// prefixRow is a row of search_prefixes.
type prefixRow struct{ prefix, words string }

// prefixRows are the rows of search_prefixes for a version's dictionary:
// words in order, pages[i] the pages holding words[i]. Every prefix (on a
// character boundary) that starts more than topPrefixWords words gets one.
func prefixRows(words []string, pages []int) []prefixRow {
	var out []prefixRow
	type group struct{ lo, hi int } // words[lo:hi] share a prefix
	groups := []group{{0, len(words)}}
	for n := 1; len(groups) > 0; n++ {
		var next []group
		for _, g := range groups {
			for i := g.lo; i < g.hi; {
				if len(words[i]) < n {
					i++ // the group's prefix itself, first in word order
					continue
				}
				p := words[i][:n]
				j := i + 1
				for j < g.hi && strings.HasPrefix(words[j], p) {
					j++
				}
				if j-i > topPrefixWords {
					next = append(next, group{i, j})
					// More than one word is longer than p: the last is.
					if utf8.RuneStart(words[j-1][n]) {
						out = append(out, prefixRow{p, topWords(words[i:j], pages[i:j])})
					}
				}
				i = j
			}
		}
		groups = next
	}
	return out
}

// topWords is the topPrefixWords of words that most pages hold, most
// first (then in word order), each followed by its pages.
func topWords(words []string, pages []int) string {
	idx := make([]int, len(words))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pages[idx[a]] > pages[idx[b]] })
	var b strings.Builder
	for k, i := range idx[:min(len(idx), topPrefixWords)] {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[i])
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(pages[i]))
	}
	return b.String()
}

// prefixEnd is the least string above every string starting with prefix
// (byte order), false when there is none.
func prefixEnd(prefix string) (string, bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// WordPostings is the best pages of a word in one version's postings.
type WordPostings struct {
	Word     string
	Postings []PagePosting
	// Complete is set when the list was read to its end.
	Complete bool
}

// FindTopPostings returns, for each of the versions and words, its limit
// best pages (impact descending, then page id ascending); a word not in a
// version's dictionary has no entry. Only the blocks holding the first
// limit postings of each list are read from the database.
func (s *Store) FindTopPostings(ctx context.Context, versionIDs []int64, words []string, limit int) ([]WordPostings, error) {
	out := []WordPostings{}
	if len(versionIDs) == 0 || len(words) == 0 || limit <= 0 {
		return out, nil
	}
	var rows []struct {
		VersionID int64  `db:"version_id"`
		Word      string `db:"word"`
		List      []byte `db:"postings"`
	}
	if err := s.readAt(ctx).selIn(ctx, &rows, `SELECT version_id, word, postings FROM search_postings
		WHERE version_id IN (?) AND word IN (?) AND block <= ? ORDER BY version_id, word, block`, versionIDs, words, blocksFor(limit+1)); err != nil {
		return nil, classify("store.FindTopPostings", err)
	}
	for i := 0; i < len(rows); {
		// The blocks read of one list, in order: they hold at least
		// limit+1 postings unless the list is shorter, so a list read
		// whole has at most limit.
		j, n := i, 0
		for ; j < len(rows) && rows[j].VersionID == rows[i].VersionID && rows[j].Word == rows[i].Word; j++ {
			n += len(rows[j].List) / postingSize
		}
		wp := WordPostings{Word: rows[i].Word, Complete: n <= limit, Postings: make([]PagePosting, 0, min(n, limit))}
		for ; i < j; i++ {
			list := rows[i].List
			for k := 0; k+postingSize <= len(list) && len(wp.Postings) < limit; k += postingSize {
				wp.Postings = append(wp.Postings, PagePosting{
					Impact: int(binary.BigEndian.Uint32(list[k:])),
					PageID: int64(binary.BigEndian.Uint64(list[k+4:])),
				})
			}
		}
		out = append(out, wp)
	}
	return out, nil
}

// FindSearchPageSections returns every section of the pages, ordered by
// page id and position.
func (s *Store) FindSearchPageSections(ctx context.Context, pageIDs []int64) ([]SearchSection, error) {
	secs := []SearchSection{}
	for start := 0; start < len(pageIDs); start += searchChunk {
		chunk := pageIDs[start:min(start+searchChunk, len(pageIDs))]
		var part []SearchSection
		var err error
		if s.dialect == Postgres {
			// Page by page through the index, whatever the planner's
			// statistics say: right after a version is indexed it has
			// none, and would read the whole table for a few pages.
			// OFFSET 0 keeps the subquery a loop over the pages.
			err = s.readAt(ctx).sel(ctx, &part, `SELECT sec.page_id, sec.position, sec.anchor, sec.title, sec.content, sec.definition, sec.labels
				FROM unnest(CAST(? AS BIGINT[])) AS p(id) CROSS JOIN LATERAL
				(SELECT * FROM search_sections WHERE page_id = p.id OFFSET 0) sec ORDER BY sec.page_id, sec.position`, pq.Array(chunk))
		} else {
			err = s.readAt(ctx).selIn(ctx, &part, `SELECT page_id, position, anchor, title, content, definition, labels
				FROM search_sections WHERE page_id IN (?) ORDER BY page_id, position`, chunk)
		}
		if err != nil {
			return nil, classify("store.FindSearchPageSections", err)
		}
		secs = append(secs, part...)
	}
	return secs, nil
}
