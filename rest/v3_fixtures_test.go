package rest

import (
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

func v3Ptr[T any](v T) *T { return &v }

// v3World holds the ids of the fixture world.
type v3World struct {
	project, subproject, translation, other, secret  *store.Project
	latest, v1, v2, otherLatest, otherHidden         *store.Version
	build1, build2, build3, build4, otherHiddenBuild *store.Build
}

// v3Config is a stored build configuration with keys out of order, to show
// that v3 sorts them.
const v3Config = `{"version": "2", "formats": ["htmlzip", "pdf", "epub"], "python": {"version": 3.7, "install": [{"requirements": "docs/requirements.txt"}], "use_system_site_packages": false}, "conda": null, "build": {"image": "readthedocs/build:latest"}, "doctype": "sphinx", "sphinx": {"builder": "sphinx", "configuration": "docs/conf.py", "fail_on_warning": false}, "mkdocs": {"configuration": null, "fail_on_warning": false}, "submodules": {"include": [], "exclude": [], "recursive": false}}`

const v3Commit = "3f0c5e8a9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e"

// world creates the data the tests read, at fixed times:
//
//   - users alice, bob, carol (superuser), dave (inactive), each with a token;
//   - alice's public `project` (github, homepage, tags) with versions
//     latest, v1.0 (tag, built, downloads) and v2.0 (private, inactive) and
//     builds 1 (latest, failed), 2 (v1.0, succeeded, config), 3 (v2.0,
//     building) and 4 (latest, triggered);
//   - alice's `subproject` (child of project, alias `subproject`) and
//     `translation` (Spanish translation of project);
//   - bob's public `other` (with a private version `hidden` and its build)
//     and private `secret`;
//   - on project: redirects 1 (page) and 2 (prefix, no to_url) and
//     environment variable 1 (ENVVAR).
func (e *v3Env) world() *v3World {
	e.t.Helper()
	t, s, ctx := e.t, e.store, e.t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	step := func() { e.clock.Advance(time.Minute) }
	alice, bob := e.user("alice"), e.user("bob")
	carol, key := storetest.MustSuperuser(t, s, "carol")
	e.users["carol"], e.tokens["carol"] = carol, key
	e.user("dave")
	must(s.SetUserActive(ctx, "dave", false))

	w := &v3World{}
	imp, err := s.ImportProject(ctx, store.ProjectImport{
		Name: "project", Slug: "project", Repo: "https://github.com/rtfd/project", RepoType: "git",
		Homepage: "http://project.com", Language: "en", ProgrammingLanguage: "words",
		MaintainerID: alice.ID, IntegrationType: store.GitHubWebhook,
	})
	must(err)
	w.project, w.latest = imp.Project, imp.Latest
	_, err = s.UpdateProject(ctx, w.project.ID, store.ProjectUpdate{Tags: &[]string{"tag", "project", "test"}})
	must(err)

	// Build 1: latest, failed.
	w.build1 = e.claim(imp.Build.ID)
	e.clock.Advance(30 * time.Second)
	w.build1, err = s.FinishBuild(ctx, w.build1.ID, store.BuildResult{Success: false, Error: "Command exited with 1.", ExitCode: v3Ptr(1)})
	must(err)
	step()

	// Build 2: v1.0, succeeded with a config and every download.
	w.v1, err = s.CreateVersion(ctx, &store.Version{ProjectID: w.project.ID, Slug: "v1.0", VerboseName: "v1.0",
		Identifier: v3Commit, Type: store.Tag, Active: true, PrivacyLevel: store.Public})
	must(err)
	b, err := s.CreateBuild(ctx, w.v1, nil)
	must(err)
	e.claim(b.ID)
	must(s.SetBuildCommit(ctx, b.ID, v3Commit))
	must(s.SetBuildConfig(ctx, b.ID, v3Config))
	e.clock.Advance(20 * time.Second)
	must(s.SetBuildState(ctx, b.ID, store.Building))
	e.clock.Advance(40 * time.Second)
	w.build2, err = s.FinishBuild(ctx, b.ID, store.BuildResult{Success: true, ExitCode: v3Ptr(0)})
	must(err)
	w.v1, err = s.UpdateVersion(ctx, w.v1.ID, store.VersionUpdate{Built: v3Ptr(true), HasPDF: v3Ptr(true), HasEPUB: v3Ptr(true), HasHTMLZip: v3Ptr(true)})
	must(err)
	step()

	// Build 3: v2.0, private and inactive, building now.
	w.v2, err = s.CreateVersion(ctx, &store.Version{ProjectID: w.project.ID, Slug: "v2.0", VerboseName: "v2.0",
		Identifier: "v2.0", Type: store.Branch, PrivacyLevel: store.Private})
	must(err)
	b, err = s.CreateBuild(ctx, w.v2, nil)
	must(err)
	e.claim(b.ID)
	e.clock.Advance(5 * time.Second)
	must(s.SetBuildState(ctx, b.ID, store.Building))
	w.build3, err = s.FindBuildByID(ctx, b.ID)
	must(err)
	step()

	// Build 4: latest, triggered.
	w.build4, err = s.CreateBuild(ctx, w.latest, nil)
	must(err)
	step()

	w.subproject = storetest.MustImport(t, s, alice, "subproject", "https://github.com/rtfd/subproject").Project
	_, err = s.CreateRelationship(ctx, w.project.ID, w.subproject.ID, "subproject")
	must(err)
	step()
	w.translation = storetest.MustImport(t, s, alice, "translation", "https://github.com/rtfd/project").Project
	_, err = s.UpdateProject(ctx, w.translation.ID, store.ProjectUpdate{Language: v3Ptr("es")})
	must(err)
	must(s.SetTranslationOf(ctx, w.translation.ID, &w.project.ID))
	step()

	oimp := storetest.MustImport(t, s, bob, "other", "https://gitlab.com/bob/other.git")
	w.other, w.otherLatest = oimp.Project, oimp.Latest
	w.otherHidden, err = s.CreateVersion(ctx, &store.Version{ProjectID: w.other.ID, Slug: "hidden", VerboseName: "hidden",
		Identifier: "hidden", Type: store.Branch, Active: true, PrivacyLevel: store.Private})
	must(err)
	w.otherHiddenBuild, err = s.CreateBuild(ctx, w.otherHidden, nil)
	must(err)
	step()
	w.secret = storetest.MustImport(t, s, bob, "secret", "https://github.com/bob/secret").Project
	w.secret, err = s.UpdateProject(ctx, w.secret.ID, store.ProjectUpdate{PrivacyLevel: v3Ptr(store.Private)})
	must(err)
	step()

	_, err = s.CreateRedirect(ctx, store.Redirect{ProjectID: w.project.ID, Type: "page", FromURL: "/docs/", ToURL: "/documentation/", Enabled: true})
	must(err)
	step()
	_, err = s.CreateRedirect(ctx, store.Redirect{ProjectID: w.project.ID, Type: "prefix", FromURL: "/old/", Enabled: true})
	must(err)
	step()
	_, err = s.CreateEnvironmentVariable(ctx, w.project.ID, "ENVVAR", "a secret value", false)
	must(err)
	step()
	return w
}

// claim makes a worker take build id, which must be the next one to claim.
func (e *v3Env) claim(id int64) *store.Build {
	e.t.Helper()
	b, err := e.store.ClaimBuild(e.t.Context(), "test-worker", time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	if b.ID != id {
		e.t.Fatalf("claimed build %d, want %d", b.ID, id)
	}
	return b
}
