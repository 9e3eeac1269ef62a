package store_test

import (
	"context"
	"testing"

	"docsd/bench/benchdata"
	"docsd/store"
	"docsd/storetest"
)

// BenchmarkHotReads measures the store reads behind the REST hot paths of
// issue 14 (package bench), on the generated data of package benchdata
// (small scale), on SQLite and PostgreSQL (skipped without one):
//
//	go test ./store/ -run '^$' -bench BenchmarkHotReads -benchmem
//
// Sub-benchmarks are named <read>/<dialect>.
func BenchmarkHotReads(b *testing.B) {
	type read struct {
		name string
		run  func(ctx context.Context, s *store.Store) (int, error) // the rows read
	}
	var user *store.User
	var project *store.Project
	var projectIDs, buildIDs []int64
	reads := []read{
		{"FindUserByToken", func(ctx context.Context, s *store.Store) (int, error) {
			_, err := s.FindUserByToken(ctx, benchdata.Key)
			return 1, err
		}},
		{"FindProjectBySlug", func(ctx context.Context, s *store.Store) (int, error) {
			_, err := s.FindProjectBySlug(ctx, benchdata.Project)
			return 1, err
		}},
		{"FindProjects", func(ctx context.Context, s *store.Store) (int, error) {
			ps, _, err := s.FindProjects(ctx, store.ProjectFilter{MaintainerID: &user.ID,
				Visible: &store.Visibility{UserID: user.ID}, Limit: 100})
			return len(ps), err
		}},
		{"FindMaintainers", func(ctx context.Context, s *store.Store) (int, error) {
			ms, err := s.FindMaintainers(ctx, projectIDs)
			return len(ms), err
		}},
		{"FindAllVersions", func(ctx context.Context, s *store.Store) (int, error) {
			vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{project.ID}, Internal: true})
			return len(vs), err
		}},
		{"FindBuildPage", func(ctx context.Context, s *store.Store) (int, error) {
			slug := benchdata.Project
			page, err := s.FindBuildPage(ctx, store.BuildFilter{ProjectSlug: &slug, Visible: &store.Visibility{}, Limit: 100})
			return len(page.Builds), err
		}},
		{"FindBuildCommands", func(ctx context.Context, s *store.Store) (int, error) {
			cs, err := s.FindBuildCommands(ctx, buildIDs)
			return len(cs), err
		}},
	}
	stores := map[store.Dialect]*store.Store{}
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
	}
	// The ids are the same on both databases: the generator writes the
	// same rows in the same order.
	ctx := context.Background()
	s := stores[store.SQLite]
	var err error
	if user, err = s.FindUserByUsername(ctx, benchdata.User); err != nil {
		b.Fatal(err)
	}
	if project, err = s.FindProjectBySlug(ctx, benchdata.Project); err != nil {
		b.Fatal(err)
	}
	ps, _, err := s.FindProjects(ctx, store.ProjectFilter{MaintainerID: &user.ID, Limit: 100})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range ps {
		projectIDs = append(projectIDs, p.ID)
	}
	builds, _, err := s.FindBuilds(ctx, store.BuildFilter{ProjectID: &project.ID, Limit: 100})
	if err != nil {
		b.Fatal(err)
	}
	for _, bd := range builds {
		buildIDs = append(buildIDs, bd.ID)
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
				b.Run(string(d), func(b *testing.B) {
					s := stores[d]
					if n, err := r.run(ctx, s); err != nil || n == 0 {
						b.Fatalf("%s read %d rows: %v", r.name, n, err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						if _, err := r.run(ctx, s); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
