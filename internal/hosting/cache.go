package hosting

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"docsd/internal/artifacts"
	"docsd/internal/errs"
	"docsd/store"
)

// cache keeps, on this node, what docs requests look up in the store:
// projects, versions, relationships, translations, redirects and
// maintainers, found or not found. It answers the hot path without a
// database read; it is emptied whole by Forget, which cmd calls after
// every committed write to a table the docs host reads (on the node that
// wrote it, before the writing request answers) and when another node
// signals one. Values are shared between requests and never
// modified.
//
// It also keeps each version's current published tree open (trees), so
// that a request neither resolves the version's symlink nor opens its
// folder (nor, on S3, reads the tree's pointer): a publish ends with a
// write to the version's row (builder and upload mark it built), whose
// commit empties the cache like any other, and the replaced tree stays
// readable for the artifacts' grace period meanwhile.
type cache struct {
	s   *store.Store
	off bool // keep nothing

	mu      sync.RWMutex // guards gen, entries, trees, answers, answerBytes and fileAnswers
	gen     uint64       // counts Forget calls: a read that began before one is not kept
	entries map[cacheKey]cacheEntry
	trees   map[treeKey]*sharedTree
	// answers are whole answers made from the entries and trees (see
	// answer), emptied with them, within answerMax bytes (none kept when
	// it is 0).
	answers     map[answerKey]*answer
	answerBytes int
	answerMax   int
	fileAnswers int // how many of answers are files (maxFileAnswers)
}

// maxCachedTrees bounds the trees kept open (one file descriptor each on
// local storage); when the cache holds that many it starts over.
const maxCachedTrees = 1024

type treeKey struct{ project, version string }

// sharedTree is a published tree opened once and read by many requests.
// refs counts its holders — the cache while it keeps it, and each request
// that took it and has not closed it — and the tree is closed when the last
// one lets go, so a request never reads a tree closed under it.
type sharedTree struct {
	artifacts.Tree
	refs atomic.Int64
}

// Close lets go of one holder's reference.
func (t *sharedTree) Close() error {
	if t.refs.Add(-1) == 0 {
		return t.Tree.Close()
	}
	return nil
}

// maxCacheEntries bounds the cache's memory (about 1 KB per entry); when
// it is full it starts over.
const maxCacheEntries = 20000

type cacheKey struct {
	kind uint8
	id   int64
	s    string
	b    bool
}

// The kinds of cached look-ups.
const (
	kindProjectBySlug uint8 = iota
	kindProjectByID
	kindVersionBySlug
	kindExternalVersions
	kindRedirects
	kindChildren
	kindParents
	kindTranslations
	kindMaintainers
	kindOrganizationRoles
)

type cacheEntry struct {
	v   any
	err error // nil or a NotFound error
}

// Forget empties the cache. Reads that are under way when it is called are
// not kept.
func (c *cache) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.entries = nil
	c.dropAnswers()
	c.dropTrees()
}

// openDetached opens the version's tree with a context that is cancelled
// when ctx is while the tree is being opened, and never after: the tree,
// which may keep the context for its later reads (S3), is read by later
// requests too.
func openDetached(ctx context.Context, files Files, project, version string) (artifacts.Tree, error) {
	opening, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return files.OpenHTML(opening, project, version)
}

// dropTrees lets go of the cache's references to the trees it keeps. The
// caller holds mu for writing.
func (c *cache) dropTrees() {
	for _, t := range c.trees {
		t.Close()
	}
	c.trees = nil
}

// openHTML opens the current published tree of a version (NotFound when
// there is none) through files, or takes the one the cache keeps open. The
// caller closes it.
func (c *cache) openHTML(ctx context.Context, files Files, project, version string) (artifacts.Tree, error) {
	if c.off {
		return files.OpenHTML(ctx, project, version)
	}
	key := treeKey{project, version}
	c.mu.RLock()
	t, ok := c.trees[key]
	if ok {
		t.refs.Add(1) // under the lock: Forget can't let go of it first
	}
	gen := c.gen
	c.mu.RUnlock()
	if ok {
		return t, nil
	}
	tree, err := openDetached(ctx, files, project, version)
	if err != nil {
		return nil, err
	}
	t = &sharedTree{Tree: tree}
	t.refs.Store(1) // the caller's
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return t, nil
	}
	if other, taken := c.trees[key]; taken {
		// Another request resolved the version meanwhile. Different trees
		// mean a publish happened in between, and which is newer is
		// unknown: keep neither, so that no reader is handed the older
		// one after having seen the newer; the next request resolves the
		// version anew.
		if other.ID() != t.ID() {
			delete(c.trees, key)
			other.Close()
		}
		return t, nil
	}
	if len(c.trees) >= maxCachedTrees {
		// Starting over is a Forget for trees: a resolution under way
		// may be older than one just dropped, so it is not kept either.
		c.gen++
		c.dropTrees()
		return t, nil
	}
	if c.trees == nil {
		c.trees = make(map[treeKey]*sharedTree)
	}
	t.refs.Add(1) // the cache's
	c.trees[key] = t
	return t, nil
}

// cached returns the answer for key, fetching and keeping it when it is
// not cached. Failures other than NotFound are not kept.
func cached[T any](c *cache, key cacheKey, fetch func() (T, error)) (T, error) {
	if c.off {
		return fetch()
	}
	c.mu.RLock()
	e, ok := c.entries[key]
	gen := c.gen
	c.mu.RUnlock()
	if ok {
		v, _ := e.v.(T)
		return v, e.err
	}
	v, err := fetch()
	if err != nil && !errs.Is(err, errs.NotFound) {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		if c.entries == nil || len(c.entries) >= maxCacheEntries {
			c.entries = make(map[cacheKey]cacheEntry)
		}
		c.entries[key] = cacheEntry{v: v, err: err}
	}
	return v, err
}

func (c *cache) projectBySlug(ctx context.Context, slug string) (*store.Project, error) {
	return cached(c, cacheKey{kind: kindProjectBySlug, s: slug}, func() (*store.Project, error) {
		return c.s.FindProjectBySlug(ctx, slug)
	})
}

func (c *cache) projectByID(ctx context.Context, id int64) (*store.Project, error) {
	return cached(c, cacheKey{kind: kindProjectByID, id: id}, func() (*store.Project, error) {
		return c.s.FindProjectByID(ctx, id)
	})
}

func (c *cache) versionBySlug(ctx context.Context, projectID int64, slug string) (*store.Version, error) {
	return cached(c, cacheKey{kind: kindVersionBySlug, id: projectID, s: slug}, func() (*store.Version, error) {
		return c.s.FindVersionBySlug(ctx, projectID, slug)
	})
}

// externalVersions are the project's pull-request versions numbered
// number (their previews are served under /_/external/<number>/).
func (c *cache) externalVersions(ctx context.Context, projectID int64, number string) ([]*store.Version, error) {
	return cached(c, cacheKey{kind: kindExternalVersions, id: projectID, s: number}, func() ([]*store.Version, error) {
		external := store.External
		return c.s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{projectID}, Type: &external, VerboseName: &number})
	})
}

func (c *cache) servedRedirects(ctx context.Context, projectID int64, forcedOnly bool) ([]*store.Redirect, error) {
	return cached(c, cacheKey{kind: kindRedirects, id: projectID, b: forcedOnly}, func() ([]*store.Redirect, error) {
		return c.s.FindServedRedirects(ctx, projectID, forcedOnly)
	})
}

// children are the relationships whose parent is the project.
func (c *cache) children(ctx context.Context, parentID int64) ([]*store.Relationship, error) {
	return cached(c, cacheKey{kind: kindChildren, id: parentID}, func() ([]*store.Relationship, error) {
		rels, _, err := c.s.FindRelationships(ctx, store.RelationshipFilter{ParentIDs: []int64{parentID}})
		return rels, err
	})
}

// parent is the relationship that nests the project, nil when none does.
func (c *cache) parent(ctx context.Context, childID int64) (*store.Relationship, error) {
	return cached(c, cacheKey{kind: kindParents, id: childID}, func() (*store.Relationship, error) {
		rels, _, err := c.s.FindRelationships(ctx, store.RelationshipFilter{ChildIDs: []int64{childID}, Limit: 1})
		if err != nil || len(rels) == 0 {
			return nil, err
		}
		return rels[0], nil
	})
}

// translations are the project's translations in lang.
func (c *cache) translations(ctx context.Context, mainID int64, lang string) ([]*store.Project, error) {
	return cached(c, cacheKey{kind: kindTranslations, id: mainID, s: lang}, func() ([]*store.Project, error) {
		ps, _, err := c.s.FindProjects(ctx, store.ProjectFilter{TranslationOf: &mainID, Language: &lang})
		return ps, err
	})
}

// maintainers are the IDs of the users who maintain the project.
func (c *cache) maintainers(ctx context.Context, projectID int64) ([]int64, error) {
	return cached(c, cacheKey{kind: kindMaintainers, id: projectID}, func() ([]int64, error) {
		ms, err := c.s.FindMaintainerships(ctx, []int64{projectID})
		if err != nil {
			return nil, err
		}
		ids := make([]int64, 0, len(ms))
		for _, m := range ms {
			ids = append(ids, m.UserID)
		}
		return ids, nil
	})
}

// organizationRoles are the roles the project's organization gives.
func (c *cache) organizationRoles(ctx context.Context, projectID int64) ([]store.RoleGrant, error) {
	return cached(c, cacheKey{kind: kindOrganizationRoles, id: projectID}, func() ([]store.RoleGrant, error) {
		return c.s.FindOrganizationRoles(ctx, []int64{projectID})
	})
}

// unservedTables are the tables whose rows the docs host's cache does not
// hold: a write to them alone leaves the cache as it is. Any other table,
// including one added later, empties it.
var unservedTables = []string{
	"builds", "build_commands", "sync_tasks", "uploads", "docs_sessions", "docs_login_codes", "docs_handoff_sessions",
	"search_pages", "search_sections", "webhook_deliveries", "webhook_exchanges",
	"environment_variables", "integrations", "artifact_garbage", "storage_locks",
	"sharing_methods", "sharing_grants", "audit_log",
	"page_views", "search_queries",
}

// Serves reports whether a write to tables may change what the docs host
// caches: when it does, every node must Forget.
func Serves(tables []string) bool {
	for _, t := range tables {
		if !slices.Contains(unservedTables, t) {
			return true
		}
	}
	return false
}

// Forget empties the docs host's cache of store look-ups (see Serves).
func (h *Handler) Forget() { h.cache.Forget() }
