package hosting

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRedirectAnswersAsNetHTTP: redirect, which skips http.Redirect's URL
// parse for absolute ASCII URLs, answers byte for byte what http.Redirect
// answers, for every method and whether a Content-Type was set or not.
func TestRedirectAnswersAsNetHTTP(t *testing.T) {
	locs := []string{
		"https://docs.example.com/docs/demo/en/latest/index.html",
		"http://127.0.0.1:8080/docs/demo/en/latest/?a=1&b=<2>#\"x'",
		"https://docs.example.com/docs/demo/en/latest/caf\u00e9.html",
		"/docs/demo/en/latest/../index.html",
		"relative.html",
	}
	for _, loc := range locs {
		for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
			for _, typed := range []bool{false, true} {
				for _, code := range []int{http.StatusFound, http.StatusMovedPermanently} {
					answer := func(write func(http.ResponseWriter, *http.Request, string, int)) *httptest.ResponseRecorder {
						r := httptest.NewRequest(method, "/docs/demo/en/latest/old/page.html", nil)
						w := httptest.NewRecorder()
						if typed {
							w.Header().Set("Content-Type", "text/plain")
						}
						write(w, r, loc, code)
						return w
					}
					direct := func(w http.ResponseWriter, r *http.Request, loc string, code int) {
						body, ok := redirect(w, r, loc, code)
						if rec := w.(*httptest.ResponseRecorder); ok && string(body) != rec.Body.String() {
							t.Errorf("%s %q: redirect reports the body %q, wrote %q", method, loc, body, rec.Body)
						}
					}
					got, want := answer(direct), answer(http.Redirect)
					if got.Code != want.Code || got.Body.String() != want.Body.String() {
						t.Errorf("%s %q (typed %v): got %d %q, want %d %q", method, loc, typed, got.Code, got.Body, want.Code, want.Body)
					}
					for _, k := range []string{"Location", "Content-Type"} {
						if g, w := got.Header().Values(k), want.Header().Values(k); len(g) != len(w) || (len(g) > 0 && g[0] != w[0]) {
							t.Errorf("%s %q (typed %v): %s got %q, want %q", method, loc, typed, k, g, w)
						}
					}
				}
			}
		}
	}
}
