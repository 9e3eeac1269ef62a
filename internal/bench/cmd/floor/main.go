// Command floor serves the REST floor (package floor) over a database that
// package benchdata filled.
//
//	floor -database-url /tmp/bench.db -addr 127.0.0.1:8100 -public-url http://127.0.0.1:8000 -docs-url http://127.0.0.1:8001
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"

	"docsd/internal/bench/benchdata"
	"docsd/internal/bench/floor"
	"docsd/internal/docsurl"
)

func main() {
	url := flag.String("database-url", "", "the database: a SQLite file path or a postgres:// URL")
	addr := flag.String("addr", "127.0.0.1:8100", "listen address")
	publicURL := flag.String("public-url", "http://127.0.0.1:8000", "docsd's --public-url, which absolute links start with")
	docsURL := flag.String("docs-url", "", "docsd's --docs-url, the origin of docs URLs; empty: the public URL")
	flag.Parse()
	if *url == "" {
		flag.Usage()
		os.Exit(2)
	}
	db, d, err := benchdata.Open(*url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	// As many connections as docsd's pools hold.
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(20)
	fmt.Fprintln(os.Stderr, "floor: listening on", *addr)
	if err := http.ListenAndServe(*addr, floor.New(db, d, docsurl.Config{PublicURL: *publicURL, DocsURL: *docsURL})); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
