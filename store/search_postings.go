package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"strings"

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

// insertPostings writes the version's dictionary and each word's postings
// list in blocks, and marks the version indexed in SearchIndexFormat;
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

// deletePostings deletes the version's dictionary, its postings and its
// mark.
func (tx *Tx) deletePostings(ctx context.Context, versionID int64) error {
	for _, table := range []string{"search_words", "search_postings", "search_indexed"} {
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

// maxWordRange bounds the words FindSearchWords reads: at most this many
// over all the versions, and at least minWordRange per version.
const (
	maxWordRange = 1000
	minWordRange = 100
)

// FindSearchWords returns the words of the versions' dictionaries that
// start with prefix, in word order, with the pages of all the versions
// that hold them; the first words of each version in word order, at most
// maxWordRange in all (minWordRange per version), are read.
func (s *Store) FindSearchWords(ctx context.Context, versionIDs []int64, prefix string) ([]SearchWord, error) {
	words := []SearchWord{}
	if len(versionIDs) == 0 || prefix == "" {
		return words, nil
	}
	// One statement, a range read per version.
	end, bounded := prefixEnd(prefix)
	limit := max(minWordRange, maxWordRange/len(versionIDs))
	parts := make([]string, len(versionIDs))
	args := make([]any, 0, 4*len(versionIDs))
	for i, v := range versionIDs {
		q := `SELECT word, pages FROM search_words WHERE version_id = ? AND word >= ?`
		args = append(args, v, prefix)
		if bounded {
			q += ` AND word < ?`
			args = append(args, end)
		}
		parts[i] = `SELECT * FROM (` + q + ` ORDER BY word LIMIT ?) w` + strconv.Itoa(i)
		args = append(args, limit)
	}
	var rows []SearchWord
	if err := s.readAt(ctx).sel(ctx, &rows, strings.Join(parts, " UNION ALL "), args...); err != nil {
		return nil, classify("store.FindSearchWords", err)
	}
	byWord := map[string]int{}
	for _, r := range rows {
		if !strings.HasPrefix(r.Word, prefix) {
			continue
		}
		if _, ok := byWord[r.Word]; !ok {
			words = append(words, SearchWord{Word: r.Word})
		}
		byWord[r.Word] += r.Pages
	}
	sort.Slice(words, func(i, j int) bool { return words[i].Word < words[j].Word })
	for i := range words {
		words[i].Pages = byWord[words[i].Word]
	}
	return words, nil
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
		WHERE version_id IN (?) AND word IN (?) AND block <= ? ORDER BY version_id, word, block`, versionIDs, words, blocksFor(limit)); err != nil {
		return nil, classify("store.FindTopPostings", err)
	}
	for i := 0; i < len(rows); {
		// The blocks read of one list, in order: when they hold more than
		// limit postings, the list goes on past limit.
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
