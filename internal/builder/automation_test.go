package builder

import (
	"context"
	"slices"
	"testing"

	"docsd/internal/storetest"
	"docsd/internal/versionrules"
	"docsd/store"
)

// TestAutomationRulesOnSync syncs a real git repository twice: rules made
// between the syncs act on what the second one adds (and, for
// delete-version, on an active branch that left the repository), each
// application recorded.
func TestAutomationRulesOnSync(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		r := newRepo(t, "main")
		r.commit("init", map[string]string{"README.md": "# Demo\n"})
		r.git("branch", "old")
		r.git("tag", "v0.9.0")
		f := newFixture(t, d, Config{})
		imp := f.importProject("Rules", r)
		pid := imp.Project.ID
		syncOnce := func() {
			t.Helper()
			if _, err := f.store.CreateSyncTask(ctx, pid); err != nil {
				t.Fatal(err)
			}
			if did, err := f.pool.RunNext(ctx, "test-worker"); err != nil || !did {
				t.Fatalf("RunNext = %v, %v", did, err)
			}
		}
		syncOnce()
		vs := f.versions(pid)
		if vs["old"] == nil || vs["v0.9.0"] == nil {
			t.Fatalf("first sync made %v", keys(vs))
		}
		if _, err := f.store.UpdateVersion(ctx, vs["old"].ID, store.VersionUpdate{Active: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		semver, all := versionrules.SemverVersions, versionrules.AllVersions
		rules := []store.AutomationRule{
			{PredefinedMatchArg: &semver, Action: store.ActionActivateVersion, VersionType: store.Tag},
			{MatchArg: `^feature/`, Action: store.ActionHideVersion, VersionType: store.Branch},
			{PredefinedMatchArg: &all, Action: store.ActionMakeVersionPrivate, VersionType: store.Tag},
			{MatchArg: `^old$`, Action: store.ActionDeleteVersion, VersionType: store.Branch},
			{MatchArg: `^v1\.2`, Action: store.ActionSetDefaultVersion, VersionType: store.Tag},
			{MatchArg: `^feature/`, Action: store.ActionActivateVersion, VersionType: store.Tag}, // wrong type: never applies
		}
		var made []*store.AutomationRule
		for _, rule := range rules {
			rule.ProjectID, rule.Priority = pid, -1
			m, err := f.store.CreateAutomationRule(ctx, rule)
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, m)
		}

		r.commit("more", map[string]string{"docs.md": "more\n"})
		r.git("tag", "v1.2.0")
		r.git("tag", "nightly")
		r.git("branch", "feature/x")
		r.git("branch", "-D", "old")
		syncOnce()

		vs = f.versions(pid)
		if v := vs["v1.2.0"]; v == nil || !v.Active || v.PrivacyLevel != store.Private {
			t.Errorf("v1.2.0 = %+v, want active and private", v)
		}
		if v := vs["nightly"]; v == nil || v.Active || v.PrivacyLevel != store.Private {
			t.Errorf("nightly = %+v, want inactive and private", v)
		}
		if v := vs["feature-x"]; v == nil || !v.Hidden || !v.Active {
			t.Errorf("feature-x = %+v, want hidden and active", v)
		}
		if vs["old"] != nil {
			t.Errorf("old is still there, want deleted by the rule")
		}
		if v := vs["v0.9.0"]; v.Active || v.PrivacyLevel == store.Private {
			t.Errorf("v0.9.0 (before the rules) = %+v, want untouched", v)
		}
		p, err := f.store.FindProjectByID(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if p.DefaultVersion != "v1.2.0" {
			t.Errorf("default version %q, want v1.2.0", p.DefaultVersion)
		}
		for _, slug := range []string{"v1.2.0", "feature-x"} {
			bs, _, err := f.store.FindBuilds(ctx, store.BuildFilter{VersionID: &vs[slug].ID})
			if err != nil || len(bs) != 1 {
				t.Errorf("%s has %d builds (%v), want 1: activated versions are built", slug, len(bs), err)
			}
		}

		ids := make([]int64, len(made))
		for i, m := range made {
			ids[i] = m.ID
		}
		ms, err := f.store.FindAutomationRuleMatches(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64][]string{}
		for _, m := range ms {
			got[m.RuleID] = append(got[m.RuleID], m.VersionName)
			if m.Action != made[slices.IndexFunc(made, func(r *store.AutomationRule) bool { return r.ID == m.RuleID })].Action {
				t.Errorf("match %+v records another action", m)
			}
		}
		want := [][]string{{"v1.2.0"}, {"feature/x"}, {"nightly", "v1.2.0"}, {"old"}, {"v1.2.0"}, nil}
		for i, m := range made {
			g := got[m.ID]
			slices.Sort(g)
			if !slices.Equal(g, want[i]) {
				t.Errorf("rule %d (%s) matched %v, want %v", i, m.Action, g, want[i])
			}
		}
	})
}
