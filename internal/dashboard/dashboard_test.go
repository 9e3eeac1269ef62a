package dashboard

import (
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/store"
)

// The pages themselves are tested against a real server in cmd/docsd
// (dashboard_test.go, browser_dashboard_test.go); these are the rules
// every page relies on.

func TestSafeNext(t *testing.T) {
	for _, tc := range []struct{ next, want string }{
		{"/projects/demo/", "/projects/demo/"},
		{"/dashboard/?x=1", "/dashboard/?x=1"},
		{"", "/dashboard/"},
		{"https://evil.example/", "/dashboard/"},
		{"//evil.example/", "/dashboard/"},
		{"/\\evil.example/", "/dashboard/"},
		{"/\t/evil.example/", "/dashboard/"},
		{"javascript:alert(1)", "/dashboard/"},
	} {
		if got := safeNext(tc.next); got != tc.want {
			t.Errorf("safeNext(%q) = %q, want %q", tc.next, got, tc.want)
		}
	}
}

func TestFormErrorsOf(t *testing.T) {
	fields := map[string]string{"name": "name", "repository.url": "repository"}
	for _, tc := range []struct {
		name string
		err  error
		want formErrors
	}{
		{"mapped fields", &errs.Error{Kind: errs.Invalid, Fields: errs.Fields{"name": {"taken"}, "repository.url": {"bad", "worse"}}},
			formErrors{"name": "taken", "repository": "bad"}},
		{"unmapped field goes to the form", &errs.Error{Kind: errs.Invalid, Fields: errs.Fields{"language": {"no"}}}, formErrors{"": "no"}},
		{"no fields", errs.E(errs.Forbidden, "op", "You do not maintain it."), formErrors{"": "You do not maintain it."}},
		{"internal stays hidden", errs.E(errs.Internal, "op", "secret detail"), formErrors{"": errs.MsgServerError}},
		{"unclassified", errors.New("boom"), formErrors{"": errs.MsgServerError}},
	} {
		if got := formErrorsOf(tc.err, fields); !maps.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBuildStatus(t *testing.T) {
	yes, no := true, false
	cancelled, other := store.CancelledErrorID, "build:unknown"
	for _, tc := range []struct {
		name string
		b    *build
		want statusLabel
	}{
		{"none", nil, statusLabel{"Not built", "none"}},
		{"running", &build{State: buildState{Code: store.Building, Name: "Building"}}, statusLabel{"Building", "running"}},
		{"passed", &build{State: buildState{Code: store.Finished}, Success: &yes}, statusLabel{"Passed", "passed"}},
		{"failed", &build{State: buildState{Code: store.Finished}, Success: &no, ErrorID: &other}, statusLabel{"Failed", "failed"}},
		{"cancelled", &build{State: buildState{Code: store.Finished}, Success: &no, ErrorID: &cancelled}, statusLabel{"Cancelled", "cancelled"}},
	} {
		if got := buildStatus(tc.b); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTook: a build's "Took" is its stored duration once it finished, the
// time since it started while it runs (the stored duration counts only to
// its last change of step), nothing while queued; a command's likewise.
func TestTook(t *testing.T) {
	ago := func(d time.Duration) *string {
		s := time.Now().Add(-d).UTC().Format(time.RFC3339Nano)
		return &s
	}
	zero, ninety, two := 0, 90, 2
	for _, tc := range []struct {
		name     string
		b        *build
		c        buildCmd
		want     string
		wantCmd  string
		counting bool
	}{
		{"queued", &build{State: buildState{Code: store.Triggered}}, buildCmd{}, "", "", false},
		{"running", &build{State: buildState{Code: store.Building}, Started: ago(42 * time.Second), Duration: &zero},
			buildCmd{StartTime: *ago(7 * time.Second)}, "42s", "7s", true},
		{"running, a command done", &build{State: buildState{Code: store.Building}, Started: ago(42 * time.Second), Duration: &zero},
			buildCmd{StartTime: *ago(7 * time.Second), RunTime: &two}, "42s", "2s", true},
		{"finished", &build{State: buildState{Code: store.Finished}, Started: ago(time.Hour), Duration: &ninety},
			buildCmd{StartTime: *ago(time.Hour), RunTime: &two}, "90s", "2s", false},
		{"finished, a command cut short", &build{State: buildState{Code: store.Finished}, Started: ago(time.Hour), Duration: &ninety},
			buildCmd{StartTime: *ago(time.Hour)}, "90s", "", false},
	} {
		// A slow machine may pass a second boundary: one more is fine.
		if got := took(tc.b); got != tc.want && !(tc.counting && got == next(tc.want)) {
			t.Errorf("%s: took = %q, want %q", tc.name, got, tc.want)
		}
		if got := commandTook(tc.b, tc.c); got != tc.wantCmd && !(tc.counting && got == next(tc.wantCmd)) {
			t.Errorf("%s: commandTook = %q, want %q", tc.name, got, tc.wantCmd)
		}
		if got := running(tc.b) != ""; got != tc.counting {
			t.Errorf("%s: counting = %v, want %v", tc.name, got, tc.counting)
		}
	}
}

// next is "Ns" for n+1 of "ns".
func next(s string) string {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "s"))
	if err != nil {
		return s
	}
	return strconv.Itoa(n+1) + "s"
}

// TestAPIValues: the API values the pages compare with are the ones the
// API answers, which come from the store.
func TestAPIValues(t *testing.T) {
	for _, tc := range []struct{ name, got, want string }{
		{"finished state", stateFinished, store.Finished},
		{"cancelled error id", errorCancelled, store.CancelledErrorID},
		{"public privacy level", privacyPublic, store.Public},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
