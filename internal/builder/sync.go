package builder

import (
	"context"

	"docsd/internal/pep440"
	"docsd/internal/slug"
	"docsd/store"
)

// Ref is a branch or tag read from a repository.
type Ref struct {
	Name       string // verbose_name
	Identifier string // `origin/<name>` for git branches, the commit SHA for tags
	Type       string // store.Branch or store.Tag
}

// SyncResult says what a version sync changed.
type SyncResult struct {
	Added    []string // slugs of the versions created from refs
	Deleted  []string // slugs of the versions removed
	Promoted string   // slug of the version `stable` now points to, "" when unchanged
	Builds   []*store.Build
}

// SyncVersions turns a repository's branches and tags into the project's
// versions and updates `stable` to follow the highest release, in one
// transaction. Two refs named `latest` (or `stable`) fail with
// MsgDuplicateMachine and change nothing. A version that has builds is
// never deleted, so a sync never loses build history or hosted docs.
func SyncVersions(ctx context.Context, s *store.Store, projectID int64, refs []Ref) (*SyncResult, error) {
	counts := map[string]int{}
	for _, r := range refs {
		if r.Name == store.Latest || r.Name == store.Stable {
			counts[r.Name]++
			if counts[r.Name] > 1 {
				return nil, fail(MsgDuplicateMachine)
			}
		}
	}
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	res := &SyncResult{}
	err = s.InTx(ctx, "builder.SyncVersions", func(tx *store.Tx) error {
		*res = SyncResult{}
		sy := &syncer{tx: tx, project: p, res: res}
		return sy.run(ctx, refs)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// syncer is one run of the sync algorithm inside a transaction.
type syncer struct {
	tx      *store.Tx
	project *store.Project
	res     *SyncResult
	bySlug  map[string]*store.Version
	all     []*store.Version // every version of the project, kept up to date
	added   map[int64]bool
	// goneActive are the slugs of active versions whose branch or tag left
	// the repository (kept, but delete-version rules apply to them).
	goneActive []string
}

func (sy *syncer) load(ctx context.Context) error {
	vs, err := sy.tx.FindVersions(ctx, store.VersionFilter{ProjectIDs: []int64{sy.project.ID}})
	if err != nil {
		return err
	}
	sy.all = vs
	sy.bySlug = map[string]*store.Version{}
	for _, v := range vs {
		sy.bySlug[v.Slug] = v
	}
	return nil
}

// replace puts an updated version in place of its old copy.
func (sy *syncer) replace(v *store.Version) {
	for i, o := range sy.all {
		if o.ID == v.ID {
			sy.all[i] = v
		}
	}
	sy.bySlug[v.Slug] = v
}

func (sy *syncer) update(ctx context.Context, v *store.Version, upd store.VersionUpdate) (*store.Version, error) {
	nv, err := sy.tx.UpdateVersion(ctx, v.ID, upd)
	if err != nil {
		return nil, err
	}
	sy.replace(nv)
	return nv, nil
}

func (sy *syncer) create(ctx context.Context, v *store.Version) (*store.Version, error) {
	nv, err := sy.tx.CreateVersion(ctx, v)
	if err != nil {
		return nil, err
	}
	sy.all = append(sy.all, nv)
	sy.bySlug[nv.Slug] = nv
	return nv, nil
}

// internal returns the versions that are not pull-request previews.
func (sy *syncer) internal() []*store.Version {
	var out []*store.Version
	for _, v := range sy.all {
		if v.Type != store.External {
			out = append(out, v)
		}
	}
	return out
}

// stableCandidate is the version `stable` should follow: the highest
// PEP 440 release (pre-releases left out) among the versions that are not
// pull-request previews, a tag before a branch (pep440.StableCandidate).
func (sy *syncer) stableCandidate() *store.Version {
	vs := sy.internal()
	cs := make([]pep440.Candidate, len(vs))
	for i, v := range vs {
		cs[i] = pep440.Candidate{ID: v.ID, VerboseName: v.VerboseName, Identifier: v.Identifier, Type: v.Type}
	}
	c, ok := pep440.StableCandidate(cs)
	if !ok {
		return nil
	}
	for _, v := range vs {
		if v.ID == c.ID {
			return v
		}
	}
	return nil
}

func (sy *syncer) run(ctx context.Context, refs []Ref) error {
	if err := sy.load(ctx); err != nil {
		return err
	}
	sy.added = map[int64]bool{}
	old := sy.stableCandidate()
	activateNewStable := old != nil && old.Active

	// Step 1: tags, then branches.
	for _, typ := range []string{store.Tag, store.Branch} {
		for _, r := range refs {
			if r.Type != typ {
				continue
			}
			if err := sy.syncRef(ctx, r); err != nil {
				return err
			}
		}
	}

	// Step 2: machine versions no longer backed by a ref.
	names := map[string]bool{}
	for _, r := range refs {
		names[r.Name] = true
	}
	if v := sy.bySlug[store.Stable]; v != nil && !names[store.Stable] && !v.Machine {
		if _, err := sy.update(ctx, v, store.VersionUpdate{Machine: ptr(true)}); err != nil {
			return err
		}
	}
	if v := sy.bySlug[store.Latest]; v != nil && !names[store.Latest] {
		branch := sy.project.EffectiveDefaultBranch()
		if !v.Machine || v.Identifier != branch || v.VerboseName != store.Latest {
			if _, err := sy.update(ctx, v, store.VersionUpdate{Machine: ptr(true), Identifier: &branch,
				VerboseName: ptr(store.Latest), Type: ptr(store.Branch)}); err != nil {
				return err
			}
		}
	}

	// Step 3: delete what left the repository, unless it must be kept.
	if err := sy.deleteGone(ctx, refs); err != nil {
		return err
	}

	// Step 4: stable update.
	if err := sy.updateStable(ctx, activateNewStable); err != nil {
		return err
	}

	// Step 5: automation rules.
	return sy.applyRules(ctx)
}

// syncRef is step 1 for one ref.
func (sy *syncer) syncRef(ctx context.Context, r Ref) error {
	if r.Name == store.Stable || r.Name == store.Latest {
		if v := sy.bySlug[r.Name]; v != nil {
			_, err := sy.update(ctx, v, store.VersionUpdate{Identifier: &r.Identifier, Type: &r.Type, Machine: ptr(false)})
			return err
		}
		return sy.createFromRef(ctx, r)
	}
	for _, v := range sy.internal() {
		if v.Type == r.Type && v.VerboseName == r.Name {
			if v.Identifier != r.Identifier {
				_, err := sy.update(ctx, v, store.VersionUpdate{Identifier: &r.Identifier, Type: &r.Type, Machine: ptr(false)})
				return err
			}
			return nil
		}
	}
	return sy.createFromRef(ctx, r)
}

// createFromRef creates an inactive version for a new ref.
func (sy *syncer) createFromRef(ctx context.Context, r Ref) error {
	s := slug.UniqueVersion(r.Name, func(s string) bool { return sy.bySlug[s] != nil })
	v, err := sy.create(ctx, &store.Version{
		ProjectID: sy.project.ID, Slug: s, VerboseName: r.Name, Identifier: r.Identifier, Type: r.Type,
		PrivacyLevel: sy.project.VersionPrivacyLevel,
	})
	if err != nil {
		return err
	}
	sy.added[v.ID] = true
	sy.res.Added = append(sy.res.Added, v.Slug)
	return nil
}

// deleteGone is step 3.
func (sy *syncer) deleteGone(ctx context.Context, refs []Ref) error {
	tagNames := map[string]bool{}
	branchIDs := map[string]bool{}
	for _, r := range refs {
		if r.Type == store.Tag {
			tagNames[r.Name] = true
		} else {
			branchIDs[r.Identifier] = true
		}
	}
	var keep []*store.Version
	for _, v := range sy.all {
		left := v.Type != store.External && v.Slug != store.Latest && v.Slug != store.Stable && !v.Uploaded &&
			!(v.Type == store.Tag && tagNames[v.VerboseName]) &&
			!(v.Type == store.Branch && branchIDs[v.Identifier])
		if left && v.Active {
			sy.goneActive = append(sy.goneActive, v.Slug)
		}
		gone := left && !v.Active
		if gone {
			hasBuilds, err := sy.tx.VersionHasBuilds(ctx, v.ID)
			if err != nil {
				return err
			}
			if !hasBuilds {
				if err := sy.tx.DeleteVersion(ctx, v.ID); err != nil {
					return err
				}
				delete(sy.bySlug, v.Slug)
				sy.res.Deleted = append(sy.res.Deleted, v.Slug)
				continue
			}
		}
		keep = append(keep, v)
	}
	sy.all = keep
	return nil
}

// updateStable creates `stable`, or points a machine-made one at
// stableCandidate, leaving a user-made `stable` alone; when it moved, it
// builds it, and activates and builds a newly added candidate when asked.
func (sy *syncer) updateStable(ctx context.Context, activateNewStable bool) error {
	cand := sy.stableCandidate()
	if cand == nil {
		return nil
	}
	stable := sy.bySlug[store.Stable]
	promoted := false
	var err error
	switch {
	case stable == nil:
		stable, err = sy.create(ctx, &store.Version{
			ProjectID: sy.project.ID, Slug: store.Stable, VerboseName: store.Stable, Identifier: cand.Identifier,
			Type: cand.Type, Active: true, Machine: true, PrivacyLevel: sy.project.VersionPrivacyLevel,
		})
		promoted = true
	case stable.Machine && stable.Identifier != cand.Identifier:
		stable, err = sy.update(ctx, stable, store.VersionUpdate{Identifier: &cand.Identifier})
		promoted = true
	}
	if err != nil || !promoted {
		return err
	}
	sy.res.Promoted = cand.Slug
	if !stable.Active {
		return nil
	}
	if err := sy.trigger(ctx, stable); err != nil {
		return err
	}
	if activateNewStable && sy.added[cand.ID] {
		activated, err := sy.update(ctx, cand, store.VersionUpdate{Active: ptr(true)})
		if err != nil {
			return err
		}
		return sy.trigger(ctx, activated)
	}
	return nil
}

// trigger queues a build of v unless the project's builds are disabled or
// v is published by the upload API.
func (sy *syncer) trigger(ctx context.Context, v *store.Version) error {
	if sy.project.Skip || v.Uploaded {
		return nil
	}
	b, err := sy.tx.CreateBuild(ctx, v, nil)
	if err != nil {
		return err
	}
	sy.res.Builds = append(sy.res.Builds, b)
	return nil
}

func ptr[T any](v T) *T { return &v }
