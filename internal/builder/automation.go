package builder

import (
	"context"

	"docsd/internal/versionrules"
	"docsd/store"
)

// applyRules runs the project's automation rules, as Read the Docs'
// run_automation_rules does: every rule (in priority order) whose version
// type and expression match is applied to each version the sync added,
// except delete-version rules, which apply to the active versions whose
// branch or tag left the repository. Each application is recorded.
func (sy *syncer) applyRules(ctx context.Context) error {
	if len(sy.res.Added) == 0 && len(sy.goneActive) == 0 {
		return nil
	}
	rules, err := sy.tx.FindAutomationRules(ctx, sy.project.ID)
	if err != nil || len(rules) == 0 {
		return err
	}
	for _, set := range []struct {
		slugs    []string
		onDelete bool
	}{{sy.res.Added, false}, {sy.goneActive, true}} {
		for _, slug := range set.slugs {
			for _, r := range rules {
				if (r.Action == store.ActionDeleteVersion) != set.onDelete {
					continue
				}
				v := sy.bySlug[slug]
				if v == nil {
					break // deleted by an earlier rule
				}
				expr := versionrules.Expression(r.PredefinedMatchArg, r.MatchArg)
				if v.Type != r.VersionType || !versionrules.Match(expr, v.VerboseName) {
					continue
				}
				if err := sy.applyAction(ctx, r.Action, v); err != nil {
					return err
				}
				if err := sy.tx.RecordAutomationRuleMatch(ctx, store.AutomationRuleMatch{RuleID: r.ID, VersionName: v.VerboseName,
					VersionType: v.Type, MatchArg: expr, Action: r.Action}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// applyAction does what an action says to v (Read the Docs'
// automation_actions): activating builds a version not yet built; hiding
// and setting as default also activate; the default version is never
// deleted.
func (sy *syncer) applyAction(ctx context.Context, action string, v *store.Version) error {
	switch action {
	case store.ActionActivateVersion:
		return sy.activate(ctx, v)
	case store.ActionHideVersion:
		nv, err := sy.update(ctx, v, store.VersionUpdate{Hidden: ptr(true)})
		if err != nil {
			return err
		}
		return sy.activate(ctx, nv)
	case store.ActionMakeVersionPublic:
		_, err := sy.update(ctx, v, store.VersionUpdate{PrivacyLevel: ptr(store.Public)})
		return err
	case store.ActionMakeVersionPrivate:
		_, err := sy.update(ctx, v, store.VersionUpdate{PrivacyLevel: ptr(store.Private)})
		return err
	case store.ActionSetDefaultVersion:
		if err := sy.activate(ctx, v); err != nil {
			return err
		}
		if err := sy.tx.SetProjectDefaultVersion(ctx, sy.project.ID, v.Slug); err != nil {
			return err
		}
		sy.project.DefaultVersion = v.Slug
		return nil
	case store.ActionDeleteVersion:
		if sy.project.DefaultVersion == v.Slug {
			return nil
		}
		if err := sy.tx.DeleteVersion(ctx, v.ID); err != nil {
			return err
		}
		delete(sy.bySlug, v.Slug)
		var keep []*store.Version
		for _, o := range sy.all {
			if o.ID != v.ID {
				keep = append(keep, o)
			}
		}
		sy.all = keep
		sy.res.Deleted = append(sy.res.Deleted, v.Slug)
		return nil
	}
	return nil
}

// activate makes v active and queues a build of it when it has never been
// built and none is queued by this sync already.
func (sy *syncer) activate(ctx context.Context, v *store.Version) error {
	if v.Active {
		return nil
	}
	nv, err := sy.update(ctx, v, store.VersionUpdate{Active: ptr(true)})
	if err != nil || nv.Built {
		return err
	}
	for _, b := range sy.res.Builds {
		if b.VersionID == nv.ID {
			return nil
		}
	}
	return sy.trigger(ctx, nv)
}
