package hosting

import (
	"strings"
	"testing"

	"docsd/store"
)

// BenchmarkServePage serves one published page of a public project from a
// SQLite store, as the load script does through HTTP, without the network.
func BenchmarkServePage(b *testing.B) {
	benchmarkServe(b, newFixture(b, store.SQLite), strings.Repeat("<p>docsd</p>\n", 1500), "docsd")
}
