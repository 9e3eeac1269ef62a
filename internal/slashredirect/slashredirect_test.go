package slashredirect

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"
)

// server is a real HTTP server with one route, /things/{id}/, that echoes
// the method and body; every other path goes through MissesSlash/Answer.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	router := mux.NewRouter()
	router.HandleFunc("/things/{id}/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" "+string(b))
	})
	router.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if MissesSlash(r, MuxMatches(router)) {
			Answer(w, r)
			return
		}
		http.NotFound(w, r)
	})
	srv := httptest.NewServer(router)
	t.Cleanup(srv.Close)
	return srv
}

func TestAnswer(t *testing.T) {
	srv := server(t)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		method, path       string
		wantStatus         int
		wantLocation       string
		wantBody, wantType string
	}{
		{"GET", "/things/1?limit=5", 301, "/things/1/?limit=5", "", ""},
		{"HEAD", "/things/1", 301, "/things/1/", "", ""},
		{"POST", "/things/1", 308, "/things/1/", `{"detail":"The URL must end with a slash: send POST to /things/1/."}`, "application/json"},
		{"PUT", "/things/1?x=1", 308, "/things/1/?x=1", `{"detail":"The URL must end with a slash: send PUT to /things/1/."}`, "application/json"},
		{"PATCH", "/things/a%20b", 308, "/things/a%20b/", `{"detail":"The URL must end with a slash: send PATCH to /things/a%20b/."}`, "application/json"},
		{"DELETE", "/things/1", 308, "/things/1/", `{"detail":"The URL must end with a slash: send DELETE to /things/1/."}`, "application/json"},
		{"OPTIONS", "/things/1", 308, "/things/1/", `{"detail":"The URL must end with a slash: send OPTIONS to /things/1/."}`, "application/json"},
		{"POST", "/things/1/x", 404, "", "404 page not found\n", "text/plain; charset=utf-8"},
		{"POST", "/other", 404, "", "404 page not found\n", "text/plain; charset=utf-8"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{"a": 1}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus || resp.Header.Get("Location") != tc.wantLocation || string(b) != tc.wantBody {
				t.Errorf("got %d %q %s, want %d %q %s", resp.StatusCode, resp.Header.Get("Location"), b, tc.wantStatus, tc.wantLocation, tc.wantBody)
			}
			if got := resp.Header.Get("Content-Type"); got != tc.wantType {
				t.Errorf("got Content-Type %q, want %q", got, tc.wantType)
			}
		})
	}
}

// TestClientsFollowWithTheBody checks why 308 was chosen: Go's client
// repeats a write on the slashed URL with its method and body.
func TestClientsFollowWithTheBody(t *testing.T) {
	srv := server(t)
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		req, err := http.NewRequest(method, srv.URL+"/things/7?x=1", strings.NewReader(`{"tags": ["a"]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := method + ` /things/7/?x=1 {"tags": ["a"]}`; resp.StatusCode != 200 || string(b) != want {
			t.Errorf("%s: got %d %q, want 200 %q", method, resp.StatusCode, b, want)
		}
	}
}
