package analytics_test

import (
	"testing"

	"docsd/internal/analytics"
	"docsd/internal/storetest"
	"docsd/store"
)

// The cost counting adds to a served page: Count is what a replayed
// answer (most pages under load) pays, PageView what a page answered
// for the first time pays, IsBot the User-Agent check of net/http's path
// (the Front keeps each connection's last verdict instead).

func BenchmarkCount(b *testing.B) {
	s := storetest.Open(b, store.SQLite)
	r := analytics.New(s, analytics.Config{})
	c := r.NewPageCounter(1, "latest", "/index.html")
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Count(c)
		}
	})
}

func BenchmarkPageView(b *testing.B) {
	s := storetest.Open(b, store.SQLite)
	r := analytics.New(s, analytics.Config{})
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.PageView(1, "latest", "/index.html")
		}
	})
}

func BenchmarkBotCache(b *testing.B) {
	var c analytics.BotCache
	const ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if c.IsBot(ua) {
				b.Fatal("a browser taken for a bot")
			}
		}
	})
}
