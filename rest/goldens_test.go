package rest

import (
	"bufio"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/mux"
)

// The golden requests table, testdata/goldens.tsv, says which requests
// produced each golden file under testdata/: one line per golden file and
// request, with the request's method, its route (the template of the route
// that served it, as the OpenAPI documents write paths, or the path itself
// when no route matched), and the answer's status and Content-Type.
// TestOpenAPIGoldens validates every golden against the OpenAPI document
// with it.
//
// The table is kept true by the golden comparisons: each records the
// request it checks (recordGolden). Without -update a request missing from
// the table fails its test, and a complete run (no -run or -skip) fails
// when a line of the table was produced by no request. With -update the
// table is rewritten: whole on a complete run, else with the recorded
// lines added.

const goldenTable = "testdata/goldens.tsv"

const goldenTableHead = "# golden\tmethod\troute\tstatus\tcontent-type (written by go test ./rest/ -update)\n"

// goldenLine is one line of the table.
type goldenLine struct {
	file        string // under testdata/, slash-separated
	method      string
	route       string
	status      int
	contentType string
}

func (l goldenLine) String() string {
	return strings.Join([]string{l.file, l.method, l.route, strconv.Itoa(l.status), l.contentType}, "\t")
}

var goldens struct {
	once     sync.Once
	table    map[goldenLine]bool // the table as read
	err      error
	mu       sync.Mutex
	recorded map[goldenLine]bool // the lines the comparisons of this run recorded
}

// readGoldenTable parses testdata/goldens.tsv.
func readGoldenTable() (map[goldenLine]bool, error) {
	f, err := os.Open(goldenTable)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	table := map[goldenLine]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 5 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 5", goldenTable, n, len(cols))
		}
		status, err := strconv.Atoi(cols[3])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: status %q", goldenTable, n, cols[3])
		}
		table[goldenLine{cols[0], cols[1], cols[2], status, cols[4]}] = true
	}
	return table, sc.Err()
}

// recordGolden records that the answer compared with golden file (under
// testdata/, e.g. "v3/error_404.json") answered method on path (its query
// ignored) with status and contentType. Without -update the line must be
// in the table.
func recordGolden(t testing.TB, file, method, path string, status int, contentType string) {
	t.Helper()
	if u, err := url.Parse(path); err == nil {
		path = u.Path
	}
	line := goldenLine{file, method, routeOf(path), status, contentType}
	goldens.mu.Lock()
	if goldens.recorded == nil {
		goldens.recorded = map[goldenLine]bool{}
	}
	goldens.recorded[line] = true
	goldens.mu.Unlock()
	if *updateGoldens {
		return
	}
	goldens.once.Do(func() { goldens.table, goldens.err = readGoldenTable() })
	if goldens.err != nil {
		t.Fatalf("%v (run go test ./rest/ -update to write it)", goldens.err)
	}
	if !goldens.table[line] {
		t.Errorf("%s lacks %q (run go test ./rest/ -update)", goldenTable, line.String())
	}
}

// completeRun reports whether every test of the package runs.
func completeRun() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return true
}

// finishGoldenTable writes the table (-update) or, after a complete run,
// reports its lines no request produced. It returns the exit code.
func finishGoldenTable() int {
	goldens.mu.Lock()
	defer goldens.mu.Unlock()
	if !*updateGoldens {
		if !completeRun() || goldens.table == nil {
			return 0
		}
		var stale []string
		for l := range goldens.table {
			if !goldens.recorded[l] {
				stale = append(stale, l.String())
			}
		}
		if len(stale) == 0 {
			return 0
		}
		slices.Sort(stale)
		fmt.Fprintf(os.Stderr, "%s: no request produced these lines (run go test ./rest/ -update):\n%s\n", goldenTable, strings.Join(stale, "\n"))
		return 1
	}
	lines := map[goldenLine]bool{}
	if !completeRun() {
		old, err := readGoldenTable()
		if err != nil && !os.IsNotExist(err) {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for l := range old {
			if _, err := os.Stat(filepath.Join("testdata", filepath.FromSlash(l.file))); err == nil {
				lines[l] = true
			}
		}
	}
	for l := range goldens.recorded {
		lines[l] = true
	}
	out := make([]string, 0, len(lines))
	for l := range lines {
		out = append(out, l.String())
	}
	slices.Sort(out)
	if err := os.WriteFile(goldenTable, []byte(goldenTableHead+strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 {
		code = finishGoldenTable()
	}
	os.Exit(code)
}

// A restRoute is one route the REST handler serves, read from the route
// tables its routers are built from.
type restRoute struct {
	template string   // gorilla/mux template, or the exact path
	methods  []string // the methods with a handler (HEAD runs GET's)
	allow    string   // the route's Allow header
}

// restRoutes returns every route of the REST handler: v3's table, v2's
// tables and the search endpoints in both their forms.
func restRoutes() []restRoute {
	var routes []restRoute
	for _, rt := range (&Server{}).v3Routes() {
		var methods []string
		for m := range rt.methods {
			methods = append(methods, m)
		}
		slices.Sort(methods)
		routes = append(routes, restRoute{rt.path, methods, rt.allow})
	}
	for _, rt := range v2Table() {
		routes = append(routes, restRoute{rt.path, []string{http.MethodGet}, v2Allow})
	}
	for p := range searchPaths {
		for _, form := range []string{p, "/_" + p} {
			routes = append(routes, restRoute{form, []string{http.MethodGet}, searchAllow})
		}
	}
	slices.SortFunc(routes, func(a, b restRoute) int { return strings.Compare(a.template, b.template) })
	return routes
}

// muxVariable is a variable of a gorilla/mux template with its pattern.
var muxVariable = regexp.MustCompile(`\{([^:}]+)(:[^}]*)?\}`)

// openAPIPath writes a gorilla/mux template as an OpenAPI path: the
// variables without their patterns.
func openAPIPath(template string) string { return muxVariable.ReplaceAllString(template, "{$1}") }

var routeMatcher = sync.OnceValue(func() *mux.Router {
	r := mux.NewRouter().SkipClean(true)
	for _, rt := range restRoutes() {
		r.Path(rt.template).Name(rt.template)
	}
	return r
})

// routeOf returns the OpenAPI path of the route that serves path, or path
// itself when none does.
func routeOf(path string) string {
	var m mux.RouteMatch
	if routeMatcher().Match(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}}, &m) && m.Route != nil {
		return openAPIPath(m.Route.GetName())
	}
	return path
}
