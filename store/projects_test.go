package store_test

import (
	"maps"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestImportProject(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")

		res, err := s.ImportProject(ctx, store.ProjectImport{
			Name: "Test Project", Slug: "test-project", Repo: "https://github.com/x/y", RepoType: "git",
			Homepage: "https://example.com", Language: "en", ProgrammingLanguage: "words",
			MaintainerID: alice.ID, IntegrationType: store.GitHubWebhook,
		})
		must(t, err)

		// The project has a new project's defaults, as stored.
		p, err := s.FindProjectBySlug(ctx, "test-project")
		must(t, err)
		if p.ID != res.Project.ID {
			t.Errorf("FindProjectBySlug id = %d, want %d", p.ID, res.Project.ID)
		}
		checks := []struct {
			field     string
			got, want any
		}{
			{"name", p.Name, "Test Project"},
			{"slug", p.Slug, "test-project"},
			{"description", p.Description, ""},
			{"language", p.Language, "en"},
			{"programming_language", p.ProgrammingLanguage, "words"},
			{"repo", p.Repo, "https://github.com/x/y"},
			{"repo_type", p.RepoType, "git"},
			{"homepage", p.Homepage, "https://example.com"},
			{"default_version", p.DefaultVersion, "latest"},
			{"default_branch", p.DefaultBranch, (*string)(nil)},
			{"detected_default_branch", p.DetectedDefaultBranch, (*string)(nil)},
			{"single_version", p.SingleVersion(), false},
			{"versioning_scheme", p.VersioningScheme, "multiple_versions_with_translations"},
			{"external_builds_privacy_level", p.ExternalBuildsPrivacyLevel, store.Public},
			{"analytics_disabled", p.AnalyticsDisabled, false},
			{"readthedocs_yaml_path", p.ReadthedocsYamlPath, (*string)(nil)},
			{"documentation_type", p.DocumentationType, "sphinx"},
			{"analytics_code", p.AnalyticsCode, (*string)(nil)},
			{"show_version_warning", p.ShowVersionWarning, false},
			{"privacy_level", p.PrivacyLevel, store.Public},
			{"version_privacy_level", p.VersionPrivacyLevel, store.Public},
			{"tags", len(p.Tags()), 0},
			{"tags JSON", p.TagsJSON, "[]"},
			{"skip", p.Skip, false},
			{"enable_pdf_build", p.EnablePDFBuild, false},
			{"enable_epub_build", p.EnableEPUBBuild, false},
			{"requirements_file", p.RequirementsFile, (*string)(nil)},
			{"conf_py_file", p.ConfPyFile, ""},
			{"install_project", p.InstallProject, false},
			{"python_interpreter", p.PythonInterpreter, "python3"},
			{"use_system_packages", p.UseSystemPackages, false},
			{"external_builds_enabled", p.ExternalBuildsEnabled, false},
			{"build_time_limit", p.BuildTimeLimit, (*int)(nil)},
			{"translation_of", p.TranslationOf, (*int64)(nil)},
			{"effective default branch", p.EffectiveDefaultBranch(), "master"},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("project %s = %#v, want %#v", c.field, c.got, c.want)
			}
		}
		wantTime(t, "created", p.Created, t0)
		wantTime(t, "modified", p.Modified, t0)

		// `latest`: machine, active, branch, pointing at the default branch.
		l, err := s.FindVersionBySlug(ctx, p.ID, store.Latest)
		must(t, err)
		if l.ID != res.Latest.ID || l.VerboseName != "latest" || l.Identifier != "master" || l.Type != store.Branch ||
			!l.Active || !l.Machine || l.Built || l.Uploaded || l.PrivacyLevel != store.Public || l.HasPDF || l.HasEPUB || l.HasHTMLZip {
			t.Errorf("latest = %+v", l)
		}

		// The importer maintains it.
		ms, err := s.FindMaintainerships(ctx, []int64{p.ID})
		must(t, err)
		if len(ms) != 1 || ms[0] != (store.Maintainership{ProjectID: p.ID, UserID: alice.ID}) {
			t.Errorf("maintainers = %+v, want alice", ms)
		}

		// One triggered build of `latest`, with the fields a new build has.
		bs, total, err := s.FindBuilds(ctx, store.BuildFilter{ProjectID: &p.ID})
		must(t, err)
		if total != 1 || len(bs) != 1 {
			t.Fatalf("builds = %d (total %d), want 1", len(bs), total)
		}
		b := bs[0]
		if b.ID != res.Build.ID || b.VersionID != l.ID || b.State != store.Triggered || b.Type != "html" || !b.Success ||
			b.Error != "" || b.Length != nil || b.Commit != nil || b.Config != "{}" || b.Started != nil || b.FinishedAt != nil ||
			b.ExitCode != nil || b.LeaseOwner != nil || b.LeaseExpires != nil {
			t.Errorf("build = %+v", b)
		}
		wantTime(t, "build created", b.Created, t0)

		// One integration of the requested type with a fresh 64-hex secret.
		ins, err := s.FindIntegrations(ctx, p.ID)
		must(t, err)
		if len(ins) != 1 || ins[0].ID != res.Integration.ID || ins[0].Type != store.GitHubWebhook || !hex64.MatchString(ins[0].Secret) {
			t.Errorf("integrations = %+v", ins)
		}

		wantCounts := map[string]int{
			"users": 1, "tokens": 1, "projects": 1, "project_users": 1, "versions": 1, "builds": 1,
			"build_commands": 0, "sync_tasks": 0, "project_relationships": 0, "redirects": 0,
			"environment_variables": 0, "integrations": 1, "invitations": 0, "webhook_exchanges": 0,
			"docs_sessions": 0, "dashboard_sessions": 0, "oidc_flows": 0, "user_identities": 0,
			"search_pages": 0, "search_sections": 0, "search_words": 0, "search_postings": 0, "search_prefixes": 0, "search_indexed": 0,
			"webhook_deliveries": 0, "uploads": 0,
			"artifact_trees": 0, "artifact_garbage": 0,
			"project_ssh_keys": 0, "project_known_hosts": 0, "project_repository_credentials": 0,
			"organizations": 0, "organization_owners": 0, "organization_sso_domains": 0, "teams": 0, "team_members": 0, "team_projects": 0,
			"sharing_methods": 0, "sharing_grants": 0, "audit_log": 0,
			"webhooks": 0, "email_hooks": 0, "notification_deliveries": 0, "notification_attempts": 0,
			"automation_rules": 0, "automation_rule_matches": 0,
			"domains": 0, "storage_locks": 0,
			"docs_login_codes": 0, "docs_handoff_sessions": 0,
			"page_views": 0, "search_queries": 0,
		}
		if got := storetest.RowCounts(t, d, db); !maps.Equal(got, wantCounts) {
			t.Errorf("row counts = %v, want %v", got, wantCounts)
		}

		// A given secret is kept.
		const secret = "my-own-secret"
		res2, err := s.ImportProject(ctx, store.ProjectImport{
			Name: "Second", Slug: "second", Repo: "https://github.com/x/z", RepoType: "git", Language: "en",
			ProgrammingLanguage: "words", MaintainerID: alice.ID, IntegrationType: store.APIWebhook, IntegrationSecret: secret,
		})
		must(t, err)
		if res2.Integration.Secret != secret || res2.Integration.Type != store.APIWebhook {
			t.Errorf("integration = %+v, want api_webhook with the given secret", res2.Integration)
		}
		if res2.Integration.Secret == res.Integration.Secret {
			t.Errorf("two imports share a secret")
		}
	})
}

// TestImportProjectFailureLeavesNothing checks that an import that fails
// half-way leaves no row behind in any table.
func TestImportProjectFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		storetest.MustImport(t, s, alice, "Taken", "https://example.com/taken.git")
		before := storetest.RowCounts(t, d, db)

		tests := []struct {
			name string
			imp  store.ProjectImport
			want errs.Kind
		}{
			{"duplicate slug", store.ProjectImport{Name: "Taken again", Slug: "taken", Repo: "https://example.com/other.git",
				RepoType: "git", Language: "en", ProgrammingLanguage: "words", MaintainerID: alice.ID, IntegrationType: store.GitHubWebhook}, errs.Conflict},
			{"missing maintainer", store.ProjectImport{Name: "Orphan", Slug: "orphan", Repo: "https://example.com/orphan.git",
				RepoType: "git", Language: "en", ProgrammingLanguage: "words", MaintainerID: 99999, IntegrationType: store.GitHubWebhook}, errs.NotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := s.ImportProject(ctx, tt.imp)
				wantKind(t, err, tt.want)
				if after := storetest.RowCounts(t, d, db); !maps.Equal(after, before) {
					t.Errorf("row counts after failed import = %v, want %v", after, before)
				}
			})
		}
		if _, err := s.FindProjectBySlug(ctx, "orphan"); !errs.Is(err, errs.NotFound) {
			t.Errorf("FindProjectBySlug(orphan) = %v, want NotFound", err)
		}
	})
}

func TestFindProjects(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		carol, _ := storetest.MustUser(t, s, "carol")

		// Slugs chosen so that code-point order differs from any linguistic
		// collation: '-' < 'Z' < '_' < 'a'.
		bProj := importProject(t, s, alice, "b-proj", store.Public)
		zed := importProject(t, s, bob, "Zed", store.Public)
		aPrivate := importProject(t, s, alice, "a-private", store.Private)
		under := importProject(t, s, bob, "_under", store.Private)
		dash := importProject(t, s, alice, "-dash", store.Public)
		_, err := s.UpdateProject(ctx, zed.Project.ID, store.ProjectUpdate{Language: ptr("es"), ProgrammingLanguage: ptr("go")})
		must(t, err)
		must(t, s.SetTranslationOf(ctx, zed.Project.ID, &bProj.Project.ID))
		must(t, s.AddMaintainer(ctx, under.Project.ID, alice.ID))

		anon := &store.Visibility{}
		tests := []struct {
			name      string
			filter    store.ProjectFilter
			want      []string
			wantTotal int
		}{
			{name: "all by code point", filter: store.ProjectFilter{},
				want: []string{"-dash", "Zed", "_under", "a-private", "b-proj"}},
			{name: "anonymous sees public", filter: store.ProjectFilter{Visible: anon},
				want: []string{"-dash", "Zed", "b-proj"}},
			{name: "alice sees public and hers", filter: store.ProjectFilter{Visible: &store.Visibility{UserID: alice.ID}},
				want: []string{"-dash", "Zed", "_under", "a-private", "b-proj"}},
			{name: "bob sees public and his", filter: store.ProjectFilter{Visible: &store.Visibility{UserID: bob.ID}},
				want: []string{"-dash", "Zed", "_under", "b-proj"}},
			{name: "carol maintains nothing", filter: store.ProjectFilter{Visible: &store.Visibility{UserID: carol.ID}},
				want: []string{"-dash", "Zed", "b-proj"}},
			{name: "superuser sees all", filter: store.ProjectFilter{Visible: &store.Visibility{All: true}},
				want: []string{"-dash", "Zed", "_under", "a-private", "b-proj"}},
			{name: "maintained by alice", filter: store.ProjectFilter{MaintainerID: &alice.ID},
				want: []string{"-dash", "_under", "a-private", "b-proj"}},
			{name: "maintained by bob", filter: store.ProjectFilter{MaintainerID: &bob.ID},
				want: []string{"Zed", "_under"}},
			{name: "maintained by carol", filter: store.ProjectFilter{MaintainerID: &carol.ID},
				want: []string{}},
			{name: "maintained by bob, seen by anonymous", filter: store.ProjectFilter{MaintainerID: &bob.ID, Visible: anon},
				want: []string{"Zed"}},
			{name: "language", filter: store.ProjectFilter{Language: ptr("es")}, want: []string{"Zed"}},
			{name: "programming language", filter: store.ProjectFilter{ProgrammingLanguage: ptr("words")},
				want: []string{"-dash", "_under", "a-private", "b-proj"}},
			{name: "slug", filter: store.ProjectFilter{Slug: ptr("a-private")}, want: []string{"a-private"}},
			{name: "slug is exact", filter: store.ProjectFilter{Slug: ptr("zed")}, want: []string{}},
			{name: "ids", filter: store.ProjectFilter{IDs: []int64{dash.Project.ID, aPrivate.Project.ID, 9999}},
				want: []string{"-dash", "a-private"}},
			{name: "translations", filter: store.ProjectFilter{TranslationOf: &bProj.Project.ID}, want: []string{"Zed"}},
			{name: "page", filter: store.ProjectFilter{Limit: 2, Offset: 1},
				want: []string{"Zed", "_under"}, wantTotal: 5},
			{name: "offset only", filter: store.ProjectFilter{Offset: 3},
				want: []string{"a-private", "b-proj"}, wantTotal: 5},
			{name: "last page", filter: store.ProjectFilter{Limit: 2, Offset: 4},
				want: []string{"b-proj"}, wantTotal: 5},
			{name: "past the end", filter: store.ProjectFilter{Limit: 2, Offset: 5},
				want: []string{}, wantTotal: 5},
			{name: "page of visible", filter: store.ProjectFilter{Visible: anon, Limit: 1, Offset: 1},
				want: []string{"Zed"}, wantTotal: 3},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ps, total, err := s.FindProjects(ctx, tt.filter)
				must(t, err)
				wantStrings(t, "slugs", projectSlugs(ps), tt.want)
				wantTotal := tt.wantTotal
				if wantTotal == 0 {
					wantTotal = len(tt.want)
				}
				if total != wantTotal {
					t.Errorf("total = %d, want %d", total, wantTotal)
				}
			})
		}

		got, err := s.FindProjectsByIDs(ctx, []int64{under.Project.ID, bProj.Project.ID})
		must(t, err)
		if len(got) != 2 {
			t.Errorf("FindProjectsByIDs = %d projects, want 2", len(got))
		}
	})
}

func TestUpdateProject(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		res := storetest.MustImport(t, s, alice, "Upd", "https://example.com/upd.git")
		id := res.Project.ID

		t1 := clock.Advance(90 * time.Second)
		p, err := s.UpdateProject(ctx, id, store.ProjectUpdate{
			Name: ptr("Updated"), Description: ptr("words"), Tags: &[]string{"b", "a", "b"},
			AnalyticsCode: ptr("UA-1"), RequirementsFile: ptr("req.txt"), BuildTimeLimit: ptr(600),
			EnablePDFBuild: ptr(true), ShowVersionWarning: ptr(true), PrivacyLevel: ptr(store.Private),
		})
		must(t, err)
		if p.Name != "Updated" || p.Slug != "upd" || p.Description != "words" || !p.EnablePDFBuild || !p.ShowVersionWarning ||
			p.PrivacyLevel != store.Private || p.AnalyticsCode == nil || *p.AnalyticsCode != "UA-1" ||
			p.RequirementsFile == nil || *p.RequirementsFile != "req.txt" || p.BuildTimeLimit == nil || *p.BuildTimeLimit != 600 {
			t.Errorf("updated project = %+v", p)
		}
		wantStrings(t, "tags", p.Tags(), []string{"b", "a", "b"})
		wantTime(t, "created", p.Created, t0)
		wantTime(t, "modified", p.Modified, t1)

		// Nil fields are left alone; empty strings and a zero limit store NULL.
		t2 := clock.Advance(time.Second)
		p, err = s.UpdateProject(ctx, id, store.ProjectUpdate{AnalyticsCode: ptr(""), RequirementsFile: ptr(""), BuildTimeLimit: ptr(0)})
		must(t, err)
		if p.Name != "Updated" || p.AnalyticsCode != nil || p.RequirementsFile != nil || p.BuildTimeLimit != nil || !p.EnablePDFBuild {
			t.Errorf("after clearing: %+v", p)
		}
		wantTime(t, "modified", p.Modified, t2)

		// An empty update still saves: modified advances.
		t3 := clock.Advance(time.Second)
		p, err = s.UpdateProject(ctx, id, store.ProjectUpdate{})
		must(t, err)
		wantTime(t, "modified after empty update", p.Modified, t3)

		// `latest` follows the effective default branch while it is a machine version.
		latestIdentifier := func() string {
			t.Helper()
			v, err := s.FindVersionBySlug(ctx, id, store.Latest)
			must(t, err)
			return v.Identifier
		}
		steps := []struct {
			name string
			upd  store.ProjectUpdate
			want string
		}{
			{"set default branch", store.ProjectUpdate{DefaultBranch: ptr("main")}, "main"},
			{"unrelated change", store.ProjectUpdate{Description: ptr("x")}, "main"},
			{"clear default branch", store.ProjectUpdate{DefaultBranch: ptr("")}, "master"},
			{"change VCS", store.ProjectUpdate{RepoType: ptr("hg")}, "default"},
			{"back to git with a branch", store.ProjectUpdate{RepoType: ptr("git"), DefaultBranch: ptr("develop")}, "develop"},
		}
		for _, st := range steps {
			_, err := s.UpdateProject(ctx, id, st.upd)
			must(t, err)
			if got := latestIdentifier(); got != st.want {
				t.Errorf("%s: latest identifier = %q, want %q", st.name, got, st.want)
			}
		}

		// A `latest` taken over by the repository is not machine-managed and stays.
		_, err = s.UpdateVersion(ctx, res.Latest.ID, store.VersionUpdate{Machine: ptr(false), Identifier: ptr("latest")})
		must(t, err)
		_, err = s.UpdateProject(ctx, id, store.ProjectUpdate{DefaultBranch: ptr("trunk")})
		must(t, err)
		if got := latestIdentifier(); got != "latest" {
			t.Errorf("non-machine latest identifier = %q, want it unchanged", got)
		}
	})
}

// TestImportProjectAllFields: the optional fields of a create are stored,
// and versioning_scheme and its single_version view are one value.
func TestImportProjectAllFields(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		res, err := s.ImportProject(ctx, store.ProjectImport{
			Name: "New", Slug: "new", Repo: "https://example.com/new.git", RepoType: "git",
			Language: "en", ProgrammingLanguage: "words", MaintainerID: alice.ID, IntegrationType: store.GitHubWebhook,
			Tags: []string{"b", "a"}, PrivacyLevel: store.Private, ExternalBuildsPrivacyLevel: store.Protected,
			ReadthedocsYamlPath: "docs/.readthedocs.yaml",
		})
		must(t, err)
		p := res.Project
		if p.PrivacyLevel != store.Private || p.ExternalBuildsPrivacyLevel != store.Protected ||
			p.ReadthedocsYamlPath == nil || *p.ReadthedocsYamlPath != "docs/.readthedocs.yaml" {
			t.Errorf("imported project = %+v", p)
		}
		wantStrings(t, "tags", p.Tags(), []string{"b", "a"})

		steps := []struct {
			name       string
			upd        store.ProjectUpdate
			wantScheme string
		}{
			{"single_version true", store.ProjectUpdate{SingleVersion: ptr(true)}, "single_version_without_translations"},
			{"single_version false from single", store.ProjectUpdate{SingleVersion: ptr(false)}, "multiple_versions_with_translations"},
			{"scheme", store.ProjectUpdate{VersioningScheme: ptr("multiple_versions_without_translations")}, "multiple_versions_without_translations"},
			{"single_version false keeps another scheme", store.ProjectUpdate{SingleVersion: ptr(false)}, "multiple_versions_without_translations"},
			{"scheme single", store.ProjectUpdate{VersioningScheme: ptr("single_version_without_translations")}, "single_version_without_translations"},
		}
		for _, st := range steps {
			p, err := s.UpdateProject(ctx, p.ID, st.upd)
			must(t, err)
			if p.VersioningScheme != st.wantScheme || p.SingleVersion() != (st.wantScheme == "single_version_without_translations") {
				t.Errorf("%s: scheme %q single_version %v, want %q", st.name, p.VersioningScheme, p.SingleVersion(), st.wantScheme)
			}
		}
		p, err = s.UpdateProject(ctx, p.ID, store.ProjectUpdate{ReadthedocsYamlPath: ptr(""), AnalyticsDisabled: ptr(true),
			ExternalBuildsPrivacyLevel: ptr(store.Public)})
		must(t, err)
		if p.ReadthedocsYamlPath != nil || !p.AnalyticsDisabled || p.ExternalBuildsPrivacyLevel != store.Public {
			t.Errorf("after update: %+v", p)
		}
	})
}

// TestExternalVersionVisibility: a pull-request version is visible to
// others when its project is public and the project's
// external_builds_privacy_level is public, whatever its own level.
func TestExternalVersionVisibility(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		p := importProject(t, s, alice, "ext", store.Public)
		ext, err := s.CreateVersion(ctx, &store.Version{ProjectID: p.Project.ID, Slug: "7", VerboseName: "7", Identifier: "abc",
			Type: store.External, Active: true, PrivacyLevel: store.Private})
		must(t, err)
		external := store.External
		visible := func(who *store.User) bool {
			t.Helper()
			vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.Project.ID}, Type: &external,
				Visible: &store.Visibility{UserID: who.ID}})
			must(t, err)
			return len(vs) == 1 && vs[0].ID == ext.ID
		}
		for _, st := range []struct {
			project, external string
			wantBob           bool
		}{
			{store.Public, store.Public, true},
			{store.Public, store.Private, false},
			{store.Private, store.Public, false},
		} {
			pr, err := s.UpdateProject(ctx, p.Project.ID, store.ProjectUpdate{PrivacyLevel: &st.project, ExternalBuildsPrivacyLevel: &st.external})
			must(t, err)
			if got := visible(bob); got != st.wantBob {
				t.Errorf("project %s, external %s: bob sees it %v, want %v", st.project, st.external, got, st.wantBob)
			}
			if got := pr.VersionIsPublic(ext); got != st.wantBob {
				t.Errorf("project %s, external %s: VersionIsPublic %v, want %v", st.project, st.external, got, st.wantBob)
			}
			if !visible(alice) {
				t.Errorf("project %s, external %s: the maintainer does not see it", st.project, st.external)
			}
		}
	})
}

func TestRecordBuildFacts(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		res := storetest.MustImport(t, s, alice, "Facts", "https://example.com/facts.git")
		id := res.Project.ID
		clock.Advance(time.Hour)

		must(t, s.RecordBuildFacts(ctx, id, ptr("main"), ptr("mkdocs")))
		p, err := s.FindProjectByID(ctx, id)
		must(t, err)
		if p.DetectedDefaultBranch == nil || *p.DetectedDefaultBranch != "main" || p.DocumentationType != "mkdocs" {
			t.Errorf("project after facts = %+v", p)
		}
		wantTime(t, "modified (not a save)", p.Modified, t0)
		v, err := s.FindVersionBySlug(ctx, id, store.Latest)
		must(t, err)
		if v.Identifier != "main" {
			t.Errorf("latest identifier = %q, want the detected branch", v.Identifier)
		}

		// A stored default branch wins over the detected one.
		_, err = s.UpdateProject(ctx, id, store.ProjectUpdate{DefaultBranch: ptr("stable-branch")})
		must(t, err)
		must(t, s.RecordBuildFacts(ctx, id, ptr("other"), nil))
		v, err = s.FindVersionBySlug(ctx, id, store.Latest)
		must(t, err)
		if v.Identifier != "stable-branch" {
			t.Errorf("latest identifier = %q, want the stored default branch", v.Identifier)
		}
		p, err = s.FindProjectByID(ctx, id)
		must(t, err)
		if p.DocumentationType != "mkdocs" || *p.DetectedDefaultBranch != "other" {
			t.Errorf("nil documentation type changed it, or branch not recorded: %+v", p)
		}
	})
}

func TestDeleteProject(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		keep := storetest.MustImport(t, s, alice, "Keep", "https://example.com/keep.git")
		child := storetest.MustImport(t, s, alice, "Child", "https://example.com/child.git")
		trans := storetest.MustImport(t, s, alice, "Trans", "https://example.com/trans.git")
		before := storetest.RowCounts(t, d, db)

		// The project to delete, with one of everything.
		doomed := storetest.MustImport(t, s, alice, "Doomed", "https://example.com/doomed.git")
		id := doomed.Project.ID
		must(t, s.AddMaintainer(ctx, id, bob.ID))
		v := storetest.MustVersion(t, s, id, "v1.0")
		b, err := s.CreateBuild(ctx, v, nil)
		must(t, err)
		_, err = s.AddBuildCommand(ctx, store.BuildCommand{BuildID: b.ID, Command: "git clone", StartTime: s.Now()})
		must(t, err)
		_, err = s.AddBuildCommand(ctx, store.BuildCommand{BuildID: doomed.Build.ID, Command: "git clone", StartTime: s.Now()})
		must(t, err)
		_, err = s.CreateRelationship(ctx, id, child.Project.ID, "child")
		must(t, err)
		_, err = s.CreateRelationship(ctx, keep.Project.ID, id, "doomed")
		must(t, err)
		_, err = s.CreateRedirect(ctx, store.Redirect{ProjectID: id, Type: "page", FromURL: "/a", ToURL: "/b"})
		must(t, err)
		_, err = s.CreateEnvironmentVariable(ctx, id, "SECRET", "value", false)
		must(t, err)
		must(t, s.RecordWebhookExchange(ctx, store.WebhookExchange{IntegrationID: doomed.Integration.ID, RequestHeaders: "{}", ResponseStatus: 200}))
		must(t, s.SetTranslationOf(ctx, trans.Project.ID, &id))

		must(t, s.DeleteProject(ctx, id))

		// Only the rows of other projects remain: the same as before the
		// doomed project was made.
		after := storetest.RowCounts(t, d, db)
		if !maps.Equal(after, before) {
			t.Errorf("row counts after delete = %v, want %v", after, before)
		}
		tr, err := s.FindProjectByID(ctx, trans.Project.ID)
		must(t, err)
		if tr.TranslationOf != nil {
			t.Errorf("translation still points at the deleted project: %d", *tr.TranslationOf)
		}
		if _, err := s.FindProjectByID(ctx, child.Project.ID); err != nil {
			t.Errorf("subproject was deleted with its parent: %v", err)
		}
		_, err = s.FindProjectByID(ctx, id)
		wantKind(t, err, errs.NotFound)
		wantKind(t, s.DeleteProject(ctx, id), errs.NotFound)
	})
}

func TestSetTranslationOf(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		main := storetest.MustImport(t, s, alice, "Main", "https://example.com/main.git")
		tr := storetest.MustImport(t, s, alice, "Trans", "https://example.com/trans.git")

		t1 := clock.Advance(time.Minute)
		must(t, s.SetTranslationOf(ctx, tr.Project.ID, &main.Project.ID))
		p, err := s.FindProjectByID(ctx, tr.Project.ID)
		must(t, err)
		if p.TranslationOf == nil || *p.TranslationOf != main.Project.ID {
			t.Errorf("translation_of = %v, want %d", p.TranslationOf, main.Project.ID)
		}
		wantTime(t, "modified", p.Modified, t1)

		must(t, s.SetTranslationOf(ctx, tr.Project.ID, nil))
		p, err = s.FindProjectByID(ctx, tr.Project.ID)
		must(t, err)
		if p.TranslationOf != nil {
			t.Errorf("translation_of = %d after unlinking", *p.TranslationOf)
		}
	})
}

func TestMaintainers(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		carol, _ := storetest.MustUser(t, s, "carol")
		p := storetest.MustImport(t, s, alice, "Shared", "https://example.com/shared.git").Project
		q := storetest.MustImport(t, s, carol, "Other", "https://example.com/other.git").Project

		maintainers := func(projectIDs ...int64) []int64 {
			t.Helper()
			ms, err := s.FindMaintainerships(ctx, projectIDs)
			must(t, err)
			return ids(ms, func(m store.Maintainership) int64 { return m.UserID })
		}

		steps := []struct {
			name     string
			do       func() error
			wantKind *errs.Kind
			want     []int64 // maintainers of p afterwards, in order added
		}{
			{"add bob", func() error { return s.AddMaintainer(ctx, p.ID, bob.ID) }, nil, []int64{alice.ID, bob.ID}},
			{"add bob again", func() error { return s.AddMaintainer(ctx, p.ID, bob.ID) }, ptr(errs.Conflict), []int64{alice.ID, bob.ID}},
			{"add carol", func() error { return s.AddMaintainer(ctx, p.ID, carol.ID) }, nil, []int64{alice.ID, bob.ID, carol.ID}},
			{"remove alice", func() error { return s.RemoveMaintainer(ctx, p.ID, alice.ID) }, nil, []int64{bob.ID, carol.ID}},
			{"remove alice again", func() error { return s.RemoveMaintainer(ctx, p.ID, alice.ID) }, ptr(errs.NotFound), []int64{bob.ID, carol.ID}},
			{"remove bob", func() error { return s.RemoveMaintainer(ctx, p.ID, bob.ID) }, nil, []int64{carol.ID}},
			{"remove the last", func() error { return s.RemoveMaintainer(ctx, p.ID, carol.ID) }, ptr(errs.Conflict), []int64{carol.ID}},
			{"remove a non-maintainer", func() error { return s.RemoveMaintainer(ctx, p.ID, alice.ID) }, ptr(errs.NotFound), []int64{carol.ID}},
		}
		for _, st := range steps {
			err := st.do()
			if st.wantKind != nil {
				if errs.KindOf(err) != *st.wantKind || err == nil {
					t.Errorf("%s: error = %v, want kind %v", st.name, err, *st.wantKind)
				}
			} else if err != nil {
				t.Errorf("%s: %v", st.name, err)
			}
			wantInt64s(t, st.name+": maintainers", maintainers(p.ID), st.want)
		}
		wantInt64s(t, "maintainers of both", maintainers(p.ID, q.ID), []int64{carol.ID, carol.ID})
	})
}

// TestMigration00011KeepsLayout: migration 00011 gives existing projects the
// new columns' defaults and keeps their URL layout: a single-version project
// becomes single_version_without_translations.
func TestMigration00011KeepsLayout(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s, db := storetest.MigratedTo(t, d, 10) // the last version before 00011
		for _, slug := range []string{"multi", "single"} {
			_, err := db.ExecContext(ctx, rebind(d, `INSERT INTO projects (name, slug, repo, single_version, created, modified) VALUES (?, ?, ?, ?, ?, ?)`),
				slug, slug, "https://example.com/"+slug+".git", slug == "single", t0, t0)
			must(t, err)
		}
		must(t, s.Migrate(ctx))
		for slug, want := range map[string]string{"multi": "multiple_versions_with_translations", "single": "single_version_without_translations"} {
			p, err := s.FindProjectBySlug(ctx, slug)
			must(t, err)
			if p.VersioningScheme != want || p.SingleVersion() != (slug == "single") || p.ExternalBuildsPrivacyLevel != store.Public ||
				p.AnalyticsDisabled || p.ReadthedocsYamlPath != nil {
				t.Errorf("%s after the migration: scheme %q, single_version %v, external level %q, analytics disabled %v, yaml path %v",
					slug, p.VersioningScheme, p.SingleVersion(), p.ExternalBuildsPrivacyLevel, p.AnalyticsDisabled, p.ReadthedocsYamlPath)
			}
		}
	})
}
