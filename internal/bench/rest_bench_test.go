package bench

import (
	"net/http"
	"testing"

	"docsd/internal/bench/benchdata"
	"docsd/store"
)

// BenchmarkREST measures the REST hot paths in-process (no network),
// docsd's handler next to the floor, on the small scale of package
// benchdata, on SQLite and PostgreSQL (skipped without one):
//
//	go test ./internal/bench/ -run '^$' -bench BenchmarkREST -benchmem
//
// Sub-benchmarks are named <request>/<server>-<dialect>, e.g.
// BenchmarkREST/V3ProjectList/docsd-sqlite.
func BenchmarkREST(b *testing.B) {
	envs := map[store.Dialect]*env{}
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		envs[d] = newEnv(b, d, benchdata.Small)
	}
	for _, req := range requests("100") {
		b.Run(req.name, func(b *testing.B) {
			for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
				e := envs[d]
				for _, server := range []struct {
					name string
					h    http.Handler
				}{{"docsd", e.docsd}, {"floor", e.floor}} {
					b.Run(server.name+"-"+string(d), func(b *testing.B) {
						if status, body := get(b, server.h, req); status != http.StatusOK {
							b.Fatalf("%s answered %d: %s", req.path, status, body)
						}
						b.ReportAllocs()
						b.ResetTimer()
						for b.Loop() {
							get(b, server.h, req)
						}
					})
				}
			}
		})
	}
}
