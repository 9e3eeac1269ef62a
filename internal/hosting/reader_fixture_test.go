package hosting

import (
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// readerWorld is the fixture of the reader's worked examples: project
// demo with the versions of its table, its translation demo-es and its
// child lib (alias library), build of v1.0 finished with success after
// 60 s.
type readerWorld struct {
	demo, es, lib *store.Project
	versions      map[string]*store.Version // demo's, by slug
	build         *store.Build
}

func newReaderWorld(f *fixture) *readerWorld {
	f.t.Helper()
	ctx := f.t.Context()
	clock := storetest.SetClock(f.s, time.Date(2019, 4, 29, 10, 0, 0, 0, time.UTC))
	w := &readerWorld{versions: map[string]*store.Version{}}
	py := "py"
	demoName, esName, repo := "Demo", "Demo (es)", "https://github.com/example/demo"
	w.demo = f.update(f.project("demo", "en"), store.ProjectUpdate{ProgrammingLanguage: &py, Name: &demoName})
	main := "main"
	if err := f.s.RecordBuildFacts(ctx, w.demo.ID, &main, nil); err != nil {
		f.t.Fatal(err)
	}
	tag, branch, yes := store.Tag, store.Branch, true
	mk := func(slug, typ, identifier string, active, built bool, machine bool) *store.Version {
		v, err := f.s.CreateVersion(ctx, &store.Version{ProjectID: w.demo.ID, Slug: slug, VerboseName: slug,
			Identifier: identifier, Type: typ, Active: active, Built: built, Machine: machine, PrivacyLevel: store.Public})
		if err != nil {
			f.t.Fatal(err)
		}
		return v
	}
	latest := f.version(w.demo, "latest")
	w.versions["latest"] = f.updateVersion(latest, store.VersionUpdate{Identifier: &main, Type: &branch, Built: &yes})
	w.versions["v1.0"] = mk("v1.0", tag, "3f0c5e8a9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e", true, true, false)
	w.versions["v1.0"] = f.updateVersion(w.versions["v1.0"], store.VersionUpdate{HasPDF: &yes, HasHTMLZip: &yes})
	w.versions["v1.1"] = mk("v1.1", tag, "9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e3f0c5e8a", true, true, false)
	w.versions["stable"] = mk("stable", tag, "9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e3f0c5e8a", true, true, true)
	w.versions["v2.0b1"] = mk("v2.0b1", tag, "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", true, false, false)
	w.versions["internal-notes"] = mk("internal-notes", branch, "origin/internal-notes", true, true, false)
	private := store.Private
	w.versions["internal-notes"] = f.updateVersion(w.versions["internal-notes"], store.VersionUpdate{PrivacyLevel: &private})
	w.versions["main"] = mk("main", branch, "origin/main", false, false, false)

	w.es = f.update(f.project("demo-es", "es"), store.ProjectUpdate{ProgrammingLanguage: &py, Name: &esName, Repo: &repo})
	if err := f.s.RecordBuildFacts(ctx, w.es.ID, &main, nil); err != nil {
		f.t.Fatal(err)
	}
	if err := f.s.SetTranslationOf(ctx, w.es.ID, &w.demo.ID); err != nil {
		f.t.Fatal(err)
	}
	f.updateVersion(f.version(w.es, "latest"), store.VersionUpdate{Built: &yes})
	w.lib = f.project("lib", "en")
	f.updateVersion(f.version(w.lib, "latest"), store.VersionUpdate{Built: &yes})
	f.updateVersion(f.version(w.lib, "1.0"), store.VersionUpdate{Built: &yes})
	if _, err := f.s.CreateRelationship(ctx, w.demo.ID, w.lib.ID, "library"); err != nil {
		f.t.Fatal(err)
	}

	// Build of v1.0: created 10:00, 60 s, success.
	f.finishAllBuilds(clock, 0, 0) // the imports' builds of latest
	b, err := f.s.CreateBuild(ctx, w.versions["v1.0"], nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.finishAllBuilds(clock, 60*time.Second, b.ID)
	if err := f.s.SetBuildCommit(ctx, b.ID, "3f0c5e8a9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e"); err != nil {
		f.t.Fatal(err)
	}
	w.build, err = f.s.FindBuildByID(ctx, b.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	// Projects modified at 12:00, as the worked examples show.
	clock.Advance(2*time.Hour - 60*time.Second)
	sw := true
	w.demo = f.update(w.demo, store.ProjectUpdate{ShowVersionWarning: &sw})
	w.es = f.update(w.es, store.ProjectUpdate{ShowVersionWarning: &sw})
	return w
}

// finishAllBuilds claims every queued build, lets d pass, and finishes
// them: the one with id success as a success, the others as failures.
func (f *fixture) finishAllBuilds(clock *storetest.Clock, d time.Duration, success int64) {
	f.t.Helper()
	ctx := f.t.Context()
	for {
		var claimed []*store.Build
		for {
			b, err := f.s.ClaimBuild(ctx, "test", time.Hour)
			if err != nil {
				break
			}
			claimed = append(claimed, b)
		}
		if len(claimed) == 0 {
			return
		}
		clock.Advance(d)
		for _, b := range claimed {
			if _, err := f.s.FinishBuild(ctx, b.ID, store.BuildResult{Success: b.ID == success}); err != nil {
				f.t.Fatal(err)
			}
		}
	}
}
