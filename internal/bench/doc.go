// Package bench holds the REST measuring tools: the floor server
// (internal/bench/floor), the data generator (internal/bench/benchdata), their commands
// (internal/bench/cmd/floor, internal/bench/cmd/benchdata), the side-by-side wrk script
// (rest-bench.sh), and, in this package's tests, the byte-for-byte
// comparison of the floor with docsd, the `go test -bench` benchmarks of
// the REST hot paths and the count of SQL statements per request.
package bench
