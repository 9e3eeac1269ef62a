// Command benchdata migrates an empty docsd database and fills it with the
// data of the REST benchmarks (package benchdata), then prints the facts a
// benchmark needs as shell assignments: the measured project, the caller's
// API key.
//
//	benchdata -database-url /tmp/bench.db -scale small
//	benchdata -database-url 'postgres://postgres@127.0.0.1:5432/bench?sslmode=disable' -scale large
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"docsd/internal/bench/benchdata"
)

func main() {
	url := flag.String("database-url", "", "an empty database: a SQLite file path or a postgres:// URL")
	scaleName := flag.String("scale", "small", "small (1k projects, 10k versions, 10k builds) or large (10k, 100k, 1M)")
	flag.Parse()
	sc, ok := benchdata.ScaleByName(*scaleName)
	if *url == "" || !ok {
		flag.Usage()
		os.Exit(2)
	}
	start := time.Now()
	if err := benchdata.Generate(context.Background(), *url, sc); err != nil {
		fmt.Fprintln(os.Stderr, "benchdata:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "benchdata: %s scale written in %s\n", *scaleName, time.Since(start).Round(time.Millisecond))
	fmt.Printf("PROJECT=%s\nTOKEN=%s\n", benchdata.Project, benchdata.Key)
}
