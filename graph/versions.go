package graph

import (
	"context"

	"docsd/internal/search"
	"docsd/store"
)

// versionAliases is a version's `aliases`: the active version the machine
// `stable` or `latest` stands for, when the caller can see it; empty for
// every other version.
func (r *Resolver) versionAliases(ctx context.Context, v *store.Version) ([]*store.Version, error) {
	none := []*store.Version{}
	if !v.Machine {
		return none, nil
	}
	ref := ""
	if v.Slug == store.Stable {
		slug, err := r.stableRef(ctx, v.ProjectID)
		if err != nil || slug == nil {
			return none, err
		}
		ref = *slug
	}
	vs, err := r.loaders(ctx).internalVersionsOf.Load(ctx, v.ProjectID)
	if err != nil {
		return nil, err
	}
	alias := store.VersionAlias(v, ref, vs)
	if alias == nil {
		return none, nil
	}
	p, err := r.loaders(ctx).projectByID.Load(ctx, v.ProjectID)
	if err != nil {
		return nil, err
	}
	if ok, err := r.canSeeVersion(ctx, alias, p); err != nil || !ok {
		return none, err
	}
	return []*store.Version{alias}, nil
}

// versionDocumentationType is v2's `documentation_type` of a version: the
// doctype of its last successful build's stored configuration, else the
// project's documentation type.
func (r *Resolver) versionDocumentationType(ctx context.Context, v *store.Version) (string, error) {
	b, err := r.loaders(ctx).lastSuccessOf.Load(ctx, v.ID)
	if err != nil {
		return "", err
	}
	if b != nil {
		if _, doctype := search.SettingsFromConfig(b.Config); doctype != "" {
			return doctype, nil
		}
	}
	p, err := r.loaders(ctx).projectByID.Load(ctx, v.ProjectID)
	if err != nil {
		return "", err
	}
	return p.DocumentationType, nil
}

// buildProjectVersion loads a build's project and version.
func (r *Resolver) buildProjectVersion(ctx context.Context, b *store.Build) (*store.Project, *store.Version, error) {
	p, err := r.loaders(ctx).projectByID.Load(ctx, b.ProjectID)
	if err != nil {
		return nil, nil, err
	}
	v, err := r.loaders(ctx).versionByID.Load(ctx, b.VersionID)
	return p, v, err
}
