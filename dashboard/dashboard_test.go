package dashboard

import (
	"errors"
	"maps"
	"testing"

	"docsd/errs"
	"docsd/store"
)

// The pages themselves are tested against a real server in cmd/docsd
// (dashboard_test.go, browser_dashboard_test.go); these are the two rules
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
