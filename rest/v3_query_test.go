package rest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// v3QueryCase is a read with fields/omit/expand and its whole body: inline
// (body) for small ones, else a golden file.
type v3QueryCase struct {
	path   string
	body   string
	golden string
}

var v3QueryCases = []v3QueryCase{
	// fields keeps only the keys named; an unexpanded active_versions is
	// absent.
	{path: v3PP + "?fields=name,slug", body: `{"name":"project","slug":"project"}`},
	{path: v3PP + "?fields=nope", body: `{}`},
	{path: v3PP + "?fields=active_versions", body: `{}`},
	{path: v3PP + "?fields=id,active_versions&expand=active_versions", golden: "query_fields_id_active_versions"},
	{path: v3PP + "?omit=_links,urls", golden: "query_omit_links_urls"},
	{path: v3PP + "?expand=active_versions&fields=active_versions.slug", body: `{"active_versions":{"v1.0":{"slug":"v1.0"}}}`},
	{path: v3PP + "?fields=urls.home", body: `{"urls":{"builds":"https://docs.example.com/projects/project/builds/","documentation":"https://docs.example.com/docs/project/en/latest/","downloads":null,"home":"https://docs.example.com/projects/project/","versions":"https://docs.example.com/projects/project/versions/"}}`},
	{path: v3PP + "?fields=id&expand=active_versions", body: `{"id":1}`},
	{path: v3PP + "?omit=active_versions&expand=active_versions", golden: "project_detail"},

	// Parsing: entries are not trimmed; empty means not given; the last
	// occurrence counts; empty entries match nothing.
	{path: v3PP + "?fields=id,%20name", body: `{"id":1}`},
	{path: v3PP + "?fields=", golden: "project_detail"},
	{path: v3PP + "?fields=,", body: `{}`},
	{path: v3PP + "?fields=name&fields=slug", body: `{"slug":"project"}`},
	{path: v3PP + "?omit=urls.home", golden: "project_detail"},
	{path: v3PP + "?omit=", golden: "project_detail"},
	{path: v3PP + "?fields=repository.url,language.code", body: `{"language":{"code":"en","name":"English"},"repository":{"type":"git","url":"https://github.com/rtfd/project"}}`},
	{path: "/api/v3/projects/subproject/?fields=subproject_of.id", golden: "query_fields_subproject_of"},

	// Deep expansion implies its parents; dotted fields and omit act inside
	// expanded fields.
	{path: v3PP + "?expand=active_versions.last_build.config&fields=id,active_versions.last_build.config,active_versions.slug", golden: "query_deep_fields"},
	{path: v3PP + "?expand=active_versions.last_build&fields=active_versions.last_build.id,active_versions.last_build.state", body: `{"active_versions":{"v1.0":{"last_build":{"id":2,"state":{"code":"finished","name":"Finished"}}}}}`},
	{path: v3PP + "?expand=active_versions.last_build&fields=active_versions&omit=active_versions.last_build,active_versions._links,active_versions.urls,active_versions.downloads", body: `{"active_versions":{"v1.0":{"active":true,"aliases":[],"built":true,"hidden":false,"id":2,"identifier":"3f0c5e8a9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e","privacy_level":"public","ref":null,"slug":"v1.0","type":"tag","verbose_name":"v1.0"}}}`},
	{path: v3PP + "?expand=active_versions.last_build&fields=active_versions.last_build&omit=active_versions.last_build.config", body: `{"active_versions":{"v1.0":{"last_build":{"_links":{"_self":"/api/v3/projects/project/builds/2/","notifications":"/api/v3/projects/project/builds/2/notifications/","project":"/api/v3/projects/project/","version":"/api/v3/projects/project/versions/v1.0/"},"commit":"3f0c5e8a9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e","created":"2019-04-29T10:01:30Z","duration":60,"error":null,"finished":"2019-04-29T10:02:30Z","id":2,"project":"project","state":{"code":"finished","name":"Finished"},"success":true,"urls":{"build":"https://docs.example.com/projects/project/builds/2/","project":"https://docs.example.com/projects/project/","version":"https://docs.example.com/projects/project/versions/v1.0/"},"version":"v1.0"}}}}`},
	{path: v3PP + "?expand=active_versions.last_build.config&fields=active_versions.last_build.config.version", golden: "query_config_inner_ignored"},

	// `*` and `~all`: the top level on detail routes, the whole permitted
	// list on list routes; detail routes ignore unknown deeper segments,
	// list routes entries that are not exactly permitted.
	{path: v3PP + "?expand=*&fields=active_versions", golden: "query_detail_expand_star"},
	{path: v3PP + "?expand=~all&fields=active_versions", golden: "query_detail_expand_star"},
	{path: v3PP + "?expand=active_versions.foo&fields=active_versions.id", body: `{"active_versions":{"v1.0":{"id":2}}}`},
	{path: v3PP + "?expand=foo.active_versions&fields=active_versions", body: `{}`},
	{path: "/api/v3/projects/?expand=~all&fields=slug,active_versions.last_build.config", golden: "query_list_expand_all"},
	{path: "/api/v3/projects/?expand=*&fields=slug,active_versions.slug", golden: "query_list_expand_star"},
	{path: "/api/v3/projects/?expand=active_versions.last_build.foo&fields=slug,active_versions", golden: "query_list_expand_unknown"},
	{path: v3PP + "versions/?expand=*&fields=slug,last_build.config", golden: "query_versions_expand_star"},
	{path: v3PP + "versions/?expand=last_build.foo&fields=slug,last_build", golden: "query_versions_expand_unknown"},
	{path: v3PP + "versions/?fields=slug,last_build", golden: "query_versions_expand_unknown"},
	{path: v3PP + "versions/v1.0/?expand=last_build&fields=last_build.id,slug", body: `{"last_build":{"id":2},"slug":"v1.0"}`},
	{path: v3PP + "versions/v2.0/?expand=last_build&fields=last_build.success", body: `{"last_build":{"success":null}}`},
	{path: v3PP + "versions/v1.0/?expand=config&fields=slug", body: `{"slug":"v1.0"}`},
	{path: v3PP + "builds/2/?expand=config&fields=id,config", golden: "query_build_config"},
	{path: v3PP + "builds/?expand=*&fields=id,config", golden: "query_builds_expand_star"},
	{path: v3PP + "builds/4/?expand=config&fields=config", body: `{"config":{}}`},
	{path: v3PP + "builds/2/?fields=config", body: `{}`},

	// Resources without expansions.
	{path: v3PP + "subprojects/?fields=alias", body: `{"count":1,"next":null,"previous":null,"results":[{"alias":"subproject"}]}`},
	{path: v3PP + "subprojects/?omit=child&expand=child", body: `{"count":1,"next":null,"previous":null,"results":[{"_links":{"_self":"/api/v3/projects/project/subprojects/subproject/","parent":"/api/v3/projects/project/"},"alias":"subproject"}]}`},
	{path: v3PP + "subprojects/subproject/?fields=child.id", golden: "query_subproject_child_whole"},
	{path: v3PP + "translations/?fields=slug,active_versions&expand=active_versions", body: `{"count":1,"next":null,"previous":null,"results":[{"slug":"translation"}]}`},
	{path: v3PP + "redirects/?fields=pk,from_url,to_url", body: `{"count":2,"next":null,"previous":null,"results":[{"from_url":"/old/","pk":2,"to_url":null},{"from_url":"/docs/","pk":1,"to_url":"/documentation/"}]}`},
	{path: v3PP + "environmentvariables/?omit=_links,created,modified", body: `{"count":1,"next":null,"previous":null,"results":[{"name":"ENVVAR","pk":1,"project":"project","public":false}]}`},
}

func TestV3FieldsOmitExpand(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		for _, c := range v3QueryCases {
			t.Run(c.path, func(t *testing.T) {
				r := e.get(c.path, "alice")
				if r.status != 200 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				if c.golden != "" {
					v3Golden(t, c.golden, r)
				} else if string(r.body) != c.body {
					t.Errorf("body\ngot:  %s\nwant: %s", r.body, c.body)
				}
			})
		}
		// Writes ignore fields, omit and expand.
		e.check(t, v3Case{v3Send("PATCH", v3PP+"redirects/1/?fields=pk&omit=_links", "alice", `{}`), 200, "query_write_ignores_fields"})
	})
}

// TestV3Pagination checks limit/offset and the next/previous links, as
// paths and (absolute_api_links) as URLs.
func TestV3Pagination(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, absolute := range []bool{false, true} {
			t.Run(fmt.Sprintf("absolute=%v", absolute), func(t *testing.T) {
				e := newV3Env(t, d, func(c *Config) { c.AbsoluteAPILinks = absolute })
				alice := e.user("alice")
				demo := storetest.MustImport(t, e.store, alice, "demo", "https://github.com/a/demo").Project
				for i := range 44 {
					storetest.MustVersion(t, e.store, demo.ID, fmt.Sprintf("v%02d", i))
				}
				inactive := storetest.MustVersion(t, e.store, demo.ID, "old")
				if _, err := e.store.UpdateVersion(t.Context(), inactive.ID, store.VersionUpdate{Active: v3Ptr(false)}); err != nil {
					t.Fatal(err)
				}
				prefix := ""
				if absolute {
					prefix = v3PublicURL
				}
				const base = "/api/v3/projects/demo/versions/"
				for _, c := range []struct {
					query          string
					count, results int
					next, previous string // "" for null; otherwise a query after base
				}{
					{"?offset=20&active=true", 45, 10, "?active=true&limit=10&offset=30", "?active=true&limit=10&offset=10"},
					{"?offset=5", 46, 10, "?limit=10&offset=15", "?limit=10"},
					{"", 46, 10, "?limit=10&offset=10", ""},
					{"?limit=1000", 46, 46, "", ""},
					{"?limit=20&offset=40", 46, 6, "", "?limit=20&offset=20"},
					{"?limit=abc&offset=-3", 46, 10, "?limit=10&offset=10", ""},
					{"?limit=0", 46, 10, "?limit=10&offset=10", ""},
					{"?limit=5&limit=3", 46, 3, "?limit=3&offset=3", ""},
					{"?zeta=1&alpha=&b=2&b=1&limit=5&offset=5", 46, 5, "?alpha=&b=2&b=1&limit=5&offset=10&zeta=1", "?alpha=&b=2&b=1&limit=5&zeta=1"},
					{"?offset=100", 46, 0, "", "?limit=10&offset=90"},
					{"?q=a+b%26c%2F%C3%A9", 46, 10, "?limit=10&offset=10&q=a+b%26c%2F%C3%A9", ""},
					{"?active=true&offset=40", 45, 5, "", "?active=true&limit=10&offset=30"},
					{"?offset=45&limit=1", 46, 1, "", "?limit=1&offset=44"},
					{"?offset=44&limit=1", 46, 1, "?limit=1&offset=45", "?limit=1&offset=43"},
				} {
					r := e.get(base+c.query, "alice")
					if r.status != 200 {
						t.Fatalf("%s: status %d: %s", c.query, r.status, r.body)
					}
					var env struct {
						Count          int
						Next, Previous *string
						Results        []json.RawMessage
					}
					if err := json.Unmarshal(r.body, &env); err != nil {
						t.Fatal(err)
					}
					link := func(q string) string {
						if q == "" {
							return "null"
						}
						return strconv.Quote(prefix + base + q)
					}
					deref := func(s *string) string {
						if s == nil {
							return "null"
						}
						return strconv.Quote(*s)
					}
					if env.Count != c.count || len(env.Results) != c.results || deref(env.Next) != link(c.next) || deref(env.Previous) != link(c.previous) {
						t.Errorf("%s: count %d, %d results, next %s, previous %s; want %d, %d, %s, %s",
							c.query, env.Count, len(env.Results), deref(env.Next), deref(env.Previous),
							c.count, c.results, link(c.next), link(c.previous))
					}
				}
				// The first page's order: verbose_name descending.
				r := e.get(base+"?limit=3&fields=slug", "alice")
				if want := fmt.Sprintf(`{"count":46,"next":%s,"previous":null,"results":[{"slug":"v43"},{"slug":"v42"},{"slug":"v41"}]}`,
					strconv.Quote(prefix+base+"?fields=slug&limit=3&offset=3")); string(r.body) != want {
					t.Errorf("got  %s\nwant %s", r.body, want)
				}
				if absolute {
					e.check(t, v3Case{v3Get("/api/v3/projects/demo/?expand=active_versions", "alice"), 200, "project_detail_absolute"})
					e.check(t, v3Case{v3Get(base+"?limit=1&offset=1&expand=last_build", "alice"), 200, "versions_list_absolute"})
				}
			})
		}
	})
}

// TestPageLinks checks the link builder alone: parameters sorted by name,
// a name's values in their order, form encoding.
func TestPageLinks(t *testing.T) {
	str := func(s *string) string {
		if s == nil {
			return "<nil>"
		}
		return *s
	}
	q, _ := url.ParseQuery("x=1&limit=7&a=%20b&a=c&offset=9")
	next, previous := pageLinks("/p/", q, page{limit: 5, offset: 5}, 100)
	if str(next) != "/p/?a=+b&a=c&limit=5&offset=10&x=1" || str(previous) != "/p/?a=+b&a=c&limit=5&x=1" {
		t.Errorf("next %v, previous %v", str(next), str(previous))
	}
	next, previous = pageLinks("/p/", q, page{limit: 5, offset: 3}, 100)
	if str(previous) != "/p/?a=+b&a=c&limit=5&x=1" {
		t.Errorf("offset under the limit: previous %v, want the first page", str(previous))
	}
	next, previous = pageLinks("/p/", url.Values{}, page{limit: 10}, 10)
	if next != nil || previous != nil {
		t.Errorf("one page: next %v, previous %v", str(next), str(previous))
	}
	// offset+limit must not wrap around: past the end there is no next page.
	next, _ = pageLinks("/p/", url.Values{}, page{limit: 1, offset: math.MaxInt}, 3)
	if next != nil {
		t.Errorf("offset MaxInt: next %v, want null", str(next))
	}
}

func TestPageOfHugeNumbers(t *testing.T) {
	s := &Server{cfg: Config{MaxPageSize: 100}}
	for query, want := range map[string]page{
		"offset=99999999999999999999999":  {limit: 10, offset: math.MaxInt},
		"offset=9223372036854775807":      {limit: 10, offset: math.MaxInt},
		"limit=99999999999999999999999":   {limit: 100},
		"limit=-99999999999999999999999":  {limit: 10},
		"offset=-99999999999999999999999": {limit: 10},
	} {
		q, _ := url.ParseQuery(query)
		if got := s.pageOf(q); got != want {
			t.Errorf("%s: %+v, want %+v", query, got, want)
		}
	}
}
