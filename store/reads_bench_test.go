package store_test

import (
	"context"
	"testing"

	"docsd/internal/bench/benchdata"
	"docsd/internal/storetest"
	"docsd/store"
)

// BenchmarkHotReads measures the store reads behind the REST hot paths that
// package bench measures, on the generated data of package benchdata (small
// scale), on SQLite and PostgreSQL (skipped without one):
//
//	go test ./store/ -run '^$' -bench BenchmarkHotReads -benchmem
//
// Sub-benchmarks are named <read>/<dialect>.
func BenchmarkHotReads(b *testing.B) {
	// fixture is what the reads look up, per database.
	type fixture struct {
		user                 *store.User
		project              *store.Project
		projectIDs, buildIDs []int64 // the user's 100 projects, 100 builds of project
	}
	type read struct {
		name string
		run  func(ctx context.Context, s *store.Store, f *fixture) (int, error) // the rows read
	}
	reads := []read{
		{"FindUserByToken", func(ctx context.Context, s *store.Store, f *fixture) (int, error) {
			_, err := s.FindUserByToken(ctx, benchdata.Key)
			return 1, err
		}},
		{"FindProjectBySlug", func(ctx context.Context, s *store.Store, f *fixture) (int, error) {
			_, err := s.FindProjectBySlug(ctx, benchdata.Project)
			return 1, err
		}},
		{"FindProjects", func(ctx context.Context, s *store.Store, f *fixture) (int, error) {
			ps, _, err := s.FindProjects(ctx, store.ProjectFilter{MaintainerID: &f.user.ID,
				Visible: &store.Visibility{UserID: f.user.ID}, Limit: 100})
			return len(ps), err
		}},
		{"FindMaintainers", func(ctx context.Context, s *store.Store, f *fixture) (int, error) {
			ms, err := s.FindMaintainers(ctx, f.projectIDs)
			return len(ms), err
		}},
		{"FindAllVersions", func(ctx context.Context, s *store.Store, f *fixture) (int, error) {
			vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{f.project.ID}, Internal: true})
			return len(vs), err
		}},
		{"FindBuildPage", func(ctx context.Context, s *store.Store, f *fixture) (int, error) {
			slug := benchdata.Project
			page, err := s.FindBuildPage(ctx, store.BuildFilter{ProjectSlug: &slug, Visible: &store.Visibility{}, Limit: 100})
			return len(page.Builds), err
		}},
		{"FindBuildCommands", func(ctx context.Context, s *store.Store, f *fixture) (int, error) {
			cs, err := s.FindBuildCommands(ctx, f.buildIDs)
			return len(cs), err
		}},
	}
	ctx := context.Background()
	stores := map[store.Dialect]*store.Store{}
	fixtures := map[store.Dialect]*fixture{}
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		url := storetest.DatabaseURL(b, d)
		if err := benchdata.Generate(b.Context(), url, benchdata.Small); err != nil {
			b.Fatal(err)
		}
		s, err := store.Open(b.Context(), url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		stores[d] = s
		f := &fixture{}
		if f.user, err = s.FindUserByUsername(ctx, benchdata.User); err != nil {
			b.Fatal(err)
		}
		if f.project, err = s.FindProjectBySlug(ctx, benchdata.Project); err != nil {
			b.Fatal(err)
		}
		ps, _, err := s.FindProjects(ctx, store.ProjectFilter{MaintainerID: &f.user.ID, Limit: 100})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range ps {
			f.projectIDs = append(f.projectIDs, p.ID)
		}
		builds, _, err := s.FindBuilds(ctx, store.BuildFilter{ProjectID: &f.project.ID, Limit: 100})
		if err != nil {
			b.Fatal(err)
		}
		for _, bd := range builds {
			f.buildIDs = append(f.buildIDs, bd.ID)
		}
		fixtures[d] = f
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
				b.Run(string(d), func(b *testing.B) {
					s, f := stores[d], fixtures[d]
					if n, err := r.run(ctx, s, f); err != nil || n == 0 {
						b.Fatalf("%s read %d rows: %v", r.name, n, err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						if _, err := r.run(ctx, s, f); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
