package search

import (
	"context"
	"maps"
	"strings"

	"docsd/internal/docsurl"
	"docsd/internal/errs"
	"docsd/store"
)

// maxPairs bounds a scope.
const maxPairs = 100

// scopeBuilder collects pairs in order, one version per project.
type scopeBuilder struct {
	s      *Service
	ctx    context.Context
	reader Reader
	pairs  []*Pair
	pos    map[int64]int // project id → index in pairs
}

func (b *scopeBuilder) add(p *Pair) {
	if p == nil {
		return
	}
	if i, ok := b.pos[p.Project.ID]; ok {
		b.pairs[i] = p // a later pair replaces the version, keeps the place
		return
	}
	if len(b.pairs) >= maxPairs {
		return
	}
	b.pos[p.Project.ID] = len(b.pairs)
	b.pairs = append(b.pairs, p)
}

// Scope resolves a query's arguments into the (project, version) pairs the
// reader may search: only internal, active, built versions the reader can
// see and that are not hidden (hidden versions are left out of every
// reader-facing listing); nothing when there is no argument.
func (s *Service) Scope(ctx context.Context, reader Reader, args []Arg) ([]*Pair, error) {
	b := &scopeBuilder{s: s, ctx: ctx, reader: reader, pos: map[int64]int{}}
	lastUser := -1
	for i, a := range args {
		if a.Name == "user" && a.Value == "@me" {
			lastUser = i
		}
	}
	for i, a := range args {
		var err error
		switch {
		case a.Name == "project":
			slug, ver, _ := strings.Cut(a.Value, "/")
			var p *Pair
			if p, err = b.pair(slug, ver); err == nil {
				b.add(p)
			}
		case a.Name == "subprojects":
			slug, ver, _ := strings.Cut(a.Value, "/")
			err = b.family(slug, ver, true)
		case i == lastUser:
			err = b.maintained()
		}
		if err != nil {
			return nil, err
		}
	}
	return b.pairs, nil
}

// Family is the scope of the v2 search endpoints: the visible project slug
// at version, then each child at the same version slug, or (fallback) at
// its default version. A project the reader can't see is NotFound with
// projectMsg; a missing or invisible version (of any state) is NotFound
// with versionMsg.
func (s *Service) Family(ctx context.Context, reader Reader, slug, version string, fallback bool, projectMsg, versionMsg string) ([]*Pair, error) {
	b := &scopeBuilder{s: s, ctx: ctx, reader: reader, pos: map[int64]int{}}
	p, err := b.project(slug)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errNotFound(projectMsg)
	}
	if versionMsg != "" {
		vs, _, err := s.Store.FindVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Slug: &version, Visible: reader.visibility(), Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(vs) == 0 {
			return nil, errNotFound(versionMsg)
		}
	}
	if err := b.familyOf(p, version, fallback); err != nil {
		return nil, err
	}
	return b.pairs, nil
}

// project returns the visible project slug, or nil.
func (b *scopeBuilder) project(slug string) (*store.Project, error) {
	ps, _, err := b.s.Store.FindProjects(b.ctx, store.ProjectFilter{Slug: &slug, Visible: b.reader.visibility(), Limit: 1})
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	return ps[0], nil
}

// pair is slug at version (its stored default version when empty), or nil
// when either does not qualify.
func (b *scopeBuilder) pair(slug, version string) (*Pair, error) {
	p, err := b.project(slug)
	if err != nil || p == nil {
		return nil, err
	}
	return b.pairOf(p, version)
}

func (b *scopeBuilder) pairOf(p *store.Project, version string) (*Pair, error) {
	if version == "" {
		version = p.DefaultVersion
	}
	vs, err := b.versions([]int64{p.ID}, version)
	if err != nil || len(vs) == 0 {
		return nil, err
	}
	t, err := targetOf(b.ctx, b.s.Store, p)
	if err != nil {
		return nil, err
	}
	return &Pair{Project: p, Version: vs[0], Target: t}, nil
}

// versions are the projects' versions with that slug that a scope may hold
// (see Scope), at most one per project.
func (b *scopeBuilder) versions(projectIDs []int64, slug string) ([]*store.Version, error) {
	yes, no := true, false
	return b.s.Store.FindAllVersions(b.ctx, store.VersionFilter{
		ProjectIDs: projectIDs, Slug: &slug, Active: &yes, Built: &yes, Hidden: &no, Internal: true,
		Visible: b.reader.visibility(),
	})
}

// family adds slug at version and its children (subprojects:P[/V]).
func (b *scopeBuilder) family(slug, version string, fallback bool) error {
	p, err := b.project(slug)
	if err != nil || p == nil {
		return err
	}
	return b.familyOf(p, version, fallback)
}

func (b *scopeBuilder) familyOf(p *store.Project, version string, fallback bool) error {
	pair, err := b.pairOf(p, version)
	if err != nil {
		return err
	}
	b.add(pair)
	rels, _, err := b.s.Store.FindRelationships(b.ctx, store.RelationshipFilter{ParentIDs: []int64{p.ID}, ChildVisible: b.reader.visibility()})
	if err != nil || len(rels) == 0 {
		return err
	}
	// The children and their versions are read at once, a statement per
	// version slug.
	ids := make([]int64, len(rels))
	for i, rel := range rels {
		ids[i] = rel.ChildID
	}
	children, err := b.s.Store.FindProjectsByIDs(b.ctx, ids)
	if err != nil {
		return err
	}
	slugOf := func(c *store.Project) string {
		if version == "" {
			return c.DefaultVersion
		}
		return version
	}
	found, err := b.versionsOf(children, slugOf)
	if err != nil {
		return err
	}
	if fallback && version != "" {
		var rest []*store.Project
		for _, c := range children {
			if found[c.ID] == nil {
				rest = append(rest, c)
			}
		}
		more, err := b.versionsOf(rest, func(c *store.Project) string { return c.DefaultVersion })
		if err != nil {
			return err
		}
		maps.Copy(found, more)
	}
	byID := make(map[int64]*store.Project, len(children))
	for _, c := range children {
		byID[c.ID] = c
	}
	for _, rel := range rels {
		child, v := byID[rel.ChildID], found[rel.ChildID]
		if child == nil || v == nil {
			continue
		}
		// A child that is no translation is reached through this
		// relationship (a project has one parent).
		t := docsurl.Target{Slug: child.Slug, Language: child.Language, Scheme: child.VersioningScheme, ParentSlug: p.Slug, Alias: rel.Alias}
		if child.TranslationOf != nil {
			if t, err = targetOf(b.ctx, b.s.Store, child); err != nil {
				return err
			}
		}
		b.add(&Pair{Project: child, Version: v, Target: t})
	}
	return nil
}

// versionsOf returns, by project id, the version of each project whose
// slug slugOf gives, among those a scope may hold (see Scope).
func (b *scopeBuilder) versionsOf(projects []*store.Project, slugOf func(*store.Project) string) (map[int64]*store.Version, error) {
	bySlug := map[string][]int64{}
	var slugs []string
	for _, p := range projects {
		slug := slugOf(p)
		if bySlug[slug] == nil {
			slugs = append(slugs, slug)
		}
		bySlug[slug] = append(bySlug[slug], p.ID)
	}
	out := map[int64]*store.Version{}
	for _, slug := range slugs {
		vs, err := b.versions(bySlug[slug], slug)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			out[v.ProjectID] = v
		}
	}
	return out, nil
}

// maintained adds every project the reader maintains at its default
// version (user:@me), in slug order.
func (b *scopeBuilder) maintained() error {
	if b.reader.UserID == 0 {
		return nil
	}
	uid := b.reader.UserID
	ps, _, err := b.s.Store.FindProjects(b.ctx, store.ProjectFilter{MaintainerID: &uid})
	if err != nil {
		return err
	}
	for _, p := range ps {
		pair, err := b.pairOf(p, "")
		if err != nil {
			return err
		}
		b.add(pair)
	}
	return nil
}

// targetOf describes p for the URL resolver: its main project (when p is a
// translation) and the relationship nesting that main project.
func targetOf(ctx context.Context, s *store.Store, p *store.Project) (docsurl.Target, error) {
	t := docsurl.Target{Slug: p.Slug, Language: p.Language, Scheme: p.VersioningScheme}
	mainID := p.ID
	if p.TranslationOf != nil {
		main, err := s.FindProjectByID(ctx, *p.TranslationOf)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return t, err
		}
		if err == nil {
			t.MainSlug, t.Scheme, mainID = main.Slug, main.VersioningScheme, main.ID
		}
	}
	rels, _, err := s.FindRelationships(ctx, store.RelationshipFilter{ChildIDs: []int64{mainID}, Limit: 1})
	if err != nil || len(rels) == 0 {
		return t, err
	}
	parent, err := s.FindProjectByID(ctx, rels[0].ParentID)
	if err != nil {
		return t, err
	}
	t.ParentSlug, t.Alias = parent.Slug, rels[0].Alias
	return t, nil
}
