package access_test

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"docsd/internal/access"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSharingGrants runs every decision a sharing grant takes part in:
// the covered versions of its own project on the docs surface, nothing of
// another project (a subproject or translation is another project), and
// nothing on the API, whatever the method's type.
func TestSharingGrants(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	ctx := t.Context()
	alice, _ := storetest.MustUser(t, s, "alice")
	p := storetest.MustImport(t, s, alice, "Handbook", "https://example.com/h.git").Project
	other := storetest.MustImport(t, s, alice, "Other", "https://example.com/o.git").Project
	p.PrivacyLevel, other.PrivacyLevel = store.Private, store.Private
	latest := &store.Version{ID: 1, ProjectID: p.ID, Slug: "latest", Active: true, PrivacyLevel: store.Private}
	stable := &store.Version{ID: 2, ProjectID: p.ID, Slug: "stable", Active: true, PrivacyLevel: store.Private}
	old := &store.Version{ID: 3, ProjectID: p.ID, Slug: "old", Active: false, PrivacyLevel: store.Private}
	otherLatest := &store.Version{ID: 4, ProjectID: other.ID, Slug: "latest", Active: true, PrivacyLevel: store.Private}

	all := &store.SharingMethod{ProjectID: p.ID, AccessType: store.SharingToken, AllowAll: true}
	listed := &store.SharingMethod{ProjectID: p.ID, AccessType: store.SharingPassword, Versions: []string{"stable"}}
	roles := access.Maintainers(func(context.Context, int64) ([]int64, error) { return nil, nil })

	for _, tc := range []struct {
		name    string
		shares  []*store.SharingMethod
		surface access.Surface
		project *store.Project
		version *store.Version
		want    bool
	}{
		{"all versions: the project", []*store.SharingMethod{all}, access.Docs, p, nil, true},
		{"all versions: an active version", []*store.SharingMethod{all}, access.Docs, p, latest, true},
		{"all versions: an inactive version", []*store.SharingMethod{all}, access.Docs, p, old, false},
		{"listed: a listed version", []*store.SharingMethod{listed}, access.Docs, p, stable, true},
		{"listed: another version", []*store.SharingMethod{listed}, access.Docs, p, latest, false},
		{"another project", []*store.SharingMethod{all}, access.Docs, other, nil, false},
		{"another project's version", []*store.SharingMethod{all}, access.Docs, other, otherLatest, false},
		{"the API: the project", []*store.SharingMethod{all}, access.API, p, nil, false},
		{"the API: a version", []*store.SharingMethod{all}, access.API, p, latest, false},
		{"no grant", nil, access.Docs, p, latest, false},
	} {
		r := access.Rights{Viewer: access.Viewer{Shares: tc.shares, ShareAuth: access.AuthSharingToken}, Surface: tc.surface, Roles: roles}
		var got bool
		var err error
		if tc.version == nil {
			got, err = r.CanRead(ctx, tc.project)
		} else {
			got, err = r.CanReadVersion(ctx, tc.project, tc.version)
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if ok, _ := r.CanAdmin(ctx, tc.project); ok {
			t.Errorf("%s: a grant administers the project", tc.name)
		}
	}
}

// TestSharingHeader: which Authorization values the docs host reads as a
// sharing token, for each type and state of method.
func TestSharingHeader(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	ctx := t.Context()
	alice, key := storetest.MustUser(t, s, "alice")
	p := storetest.MustImport(t, s, alice, "Handbook", "https://example.com/h.git").Project
	future := time.Now().UTC().AddDate(0, 0, 3).Format(time.DateOnly)
	past := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	mk := func(typ, expires string) string {
		m, err := s.CreateSharingMethod(ctx, store.SharingMethod{ProjectID: p.ID, AccessType: typ, AllowAll: true, Expires: expires})
		if err != nil {
			t.Fatal(err)
		}
		return m.Token
	}
	header, link, expired := mk(store.SharingHTTPHeader, future), mk(store.SharingToken, future), mk(store.SharingHTTPHeader, past)
	basic := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	session := func() (access.Viewer, error) { return access.Viewer{}, nil }
	for _, tc := range []struct {
		name, header string
		shares       int
		user         string
	}{
		{"Token", "Token " + header, 1, ""},
		{"token, any case", "token " + header, 1, ""},
		{"Basic, empty password", basic(header, ""), 1, ""},
		{"Basic with a password", basic(header, "x"), 0, ""},
		{"a secret link's token", "Token " + link, 0, ""},
		{"an expired method", "Token " + expired, 0, ""},
		{"an API key", "Token " + key, 0, "alice"},
		{"nothing", "", 0, ""},
	} {
		v, err := access.DocsReader(ctx, s, tc.header, session)
		if err != nil || len(v.Shares) != tc.shares || name(v) != tc.user || (tc.shares > 0 && v.ShareAuth != access.AuthSharingHeader) {
			t.Errorf("%s: %d shares, user %q, %v; want %d, %q", tc.name, len(v.Shares), name(v), err, tc.shares, tc.user)
		}
	}
}

// TestAuditVisibility: which actions each kind of reader reads of its own
// entries, of the projects it administers and of organizations it owns.
func TestAuditVisibility(t *testing.T) {
	u := &store.User{ID: 7}
	super := &store.User{ID: 8, IsSuperuser: true}
	if v := access.AuditVisibility(access.Viewer{User: super}, nil); !v.All {
		t.Errorf("superuser: %+v, want all", v)
	}
	if v := access.AuditVisibility(access.Viewer{System: true}, nil); !v.All {
		t.Errorf("system: %+v, want all", v)
	}
	if v := access.AuditVisibility(access.Viewer{}, nil); v.All || v.UserID != 0 || len(v.OrganizationIDs) != 0 {
		t.Errorf("anonymous: %+v, want nothing", v)
	}
	v := access.AuditVisibility(access.Viewer{User: u}, []int64{3})
	has := func(list []string, a string) bool {
		for _, x := range list {
			if x == a {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		list   string
		action string
		want   bool
	}{
		{"own", store.AuditAuthentication, true},
		{"own", store.AuditTokenCreated, true},
		{"own", store.AuditPageview, false},
		{"project", store.AuditPageview, true},
		{"project", store.AuditSharingDeleted, true},
		{"project", store.AuditInvitationDeclined, false},
		{"project", store.AuditTokenCreated, false},
		{"owner hides", store.AuditInvitationDeclined, true},
		{"owner hides", store.AuditTokenRevoked, true},
		{"owner hides", store.AuditPageview, false},
	} {
		list := map[string][]string{"own": v.UserActions, "project": v.ProjectActions, "owner hides": v.OrganizationHidden}[tc.list]
		if has(list, tc.action) != tc.want {
			t.Errorf("%s %s: %v, want %v", tc.list, tc.action, !tc.want, tc.want)
		}
	}
	if v.UserID != 7 || len(v.OrganizationIDs) != 1 {
		t.Errorf("user: %+v", v)
	}
}
