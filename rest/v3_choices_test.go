package rest

import (
	"encoding/json"
	"reflect"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestV3ChoiceFields: every REST choice field that GraphQL takes as an
// enum answers an unknown value with its own 400 field message, and
// nothing is written; a known value, trimmed where the field trims, is
// written.
func TestV3ChoiceFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		const v1 = v3PP + "versions/v1.0/"
		create := func(extra string) string {
			return `{"name": "Chosen", "repository": {"url": "https://github.com/rtfd/chosen", "type": "git"}` + extra + `}`
		}
		for _, c := range []struct {
			name, method, path, body string
			want                     string // the 400 body
		}{
			{"create privacy_level", "POST", "/api/v3/projects/", create(`, "privacy_level": "secret"`),
				`{"privacy_level": ["\"secret\" is not a valid choice."]}`},
			{"create external_builds_privacy_level", "POST", "/api/v3/projects/", create(`, "external_builds_privacy_level": "PUBLIC"`),
				`{"external_builds_privacy_level": ["\"PUBLIC\" is not a valid choice."]}`},
			{"create repository.type", "POST", "/api/v3/projects/", `{"name": "Chosen", "repository": {"url": "https://github.com/rtfd/chosen", "type": "cvs"}}`,
				`{"repository": {"type": ["\"cvs\" is not a valid choice."]}}`},
			{"create blank privacy_level", "POST", "/api/v3/projects/", create(`, "privacy_level": " "`),
				`{"privacy_level": ["This field may not be blank."]}`},
			{"create number as privacy_level", "POST", "/api/v3/projects/", create(`, "privacy_level": 2`),
				`{"privacy_level": ["\"2\" is not a valid choice."]}`},
			{"update privacy_level", "PATCH", v3PP, `{"privacy_level": "hidden"}`,
				`{"privacy_level": ["\"hidden\" is not a valid choice."]}`},
			{"update external_builds_privacy_level", "PATCH", v3PP, `{"external_builds_privacy_level": "nope"}`,
				`{"external_builds_privacy_level": ["\"nope\" is not a valid choice."]}`},
			{"update repository.type", "PATCH", v3PP, `{"repository": {"type": "darcs"}}`,
				`{"repository": {"type": ["\"darcs\" is not a valid choice."]}}`},
			{"update versioning_scheme", "PATCH", v3PP, `{"versioning_scheme": "per_version", "single_version": true}`,
				`{"versioning_scheme": ["\"per_version\" is not a valid choice."]}`},
			{"version privacy_level", "PATCH", v1, `{"privacy_level": "internal"}`,
				`{"privacy_level": ["\"internal\" is not a valid choice."]}`},
			{"version privacy_level is not trimmed", "PATCH", v1, `{"privacy_level": " private "}`,
				`{"privacy_level": ["\" private \" is not a valid choice."]}`},
			{"redirect type", "POST", v3PP + "redirects/", `{"type": "regex", "from_url": "/a/", "to_url": "/b/"}`,
				`{"type": ["\"regex\" is not a valid choice."]}`},
			{"redirect type on update", "PUT", v3PP + "redirects/1/", `{"type": "Page", "from_url": "/a/", "to_url": "/b/"}`,
				`{"type": ["\"Page\" is not a valid choice."]}`},
			{"upload version.type", "POST", "/api/v3/upload/initiate/", `{"project": "project", "version": {"name": "main", "type": "unknown", "commit": "abc"}}`,
				`{"version": {"type": ["\"unknown\" is not a valid choice."]}}`},
			{"upload version.privacy_level", "POST", "/api/v3/upload/initiate/", `{"project": "project", "version": {"name": "main", "type": "branch", "commit": "abc", "privacy_level": "open"}}`,
				`{"version": {"privacy_level": ["\"open\" is not a valid choice."]}}`},
			{"upload complete status", "POST", "/api/v3/upload/complete/", `{"build": 1, "status": "done"}`,
				`{"status": ["\"done\" is not a valid choice."]}`},
			{"upload complete status is not trimmed", "POST", "/api/v3/upload/complete/", `{"build": 1, "status": "success "}`,
				`{"status": ["\"success \" is not a valid choice."]}`},
			{"upload complete status in capitals", "POST", "/api/v3/upload/complete/", `{"build": 1, "status": "Failed"}`,
				`{"status": ["\"Failed\" is not a valid choice."]}`},
		} {
			r := e.do(v3Send(c.method, c.path, "alice", c.body))
			var got, want any
			if err := json.Unmarshal(r.body, &got); err != nil {
				t.Errorf("%s: %d %s", c.name, r.status, r.body)
				continue
			}
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			if r.status != 400 || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %d %s, want 400 %s", c.name, r.status, r.body, c.want)
			}
		}
		if _, err := e.store.FindProjectBySlug(t.Context(), "chosen"); err == nil {
			t.Error("a refused create wrote the project")
		}
		p, err := e.store.FindProjectBySlug(t.Context(), "project")
		if err != nil {
			t.Fatal(err)
		}
		if p.PrivacyLevel != w.project.PrivacyLevel || p.RepoType != w.project.RepoType || p.VersioningScheme != w.project.VersioningScheme {
			t.Errorf("refused updates wrote the project: %+v", p)
		}

		// Known values are the enum's: written, trimmed where the field trims.
		for _, c := range []struct{ method, path, body string }{
			{"PATCH", v3PP, `{"privacy_level": " protected ", "external_builds_privacy_level": "private", "versioning_scheme": "single_version_without_translations"}`},
			{"PATCH", v1, `{"privacy_level": "private"}`},
			{"POST", v3PP + "redirects/", `{"type": " exact ", "from_url": "/from.html", "to_url": "/to.html"}`},
		} {
			if r := e.do(v3Send(c.method, c.path, "alice", c.body)); r.status/100 != 2 {
				t.Errorf("%s %s %s: %d %s", c.method, c.path, c.body, r.status, r.body)
			}
		}
		p, err = e.store.FindProjectBySlug(t.Context(), "project")
		if err != nil {
			t.Fatal(err)
		}
		if p.PrivacyLevel != store.Protected || p.ExternalBuildsPrivacyLevel != store.Private || p.VersioningScheme != "single_version_without_translations" {
			t.Errorf("after known values: privacy %q, external %q, scheme %q", p.PrivacyLevel, p.ExternalBuildsPrivacyLevel, p.VersioningScheme)
		}
		v, err := e.store.FindVersionBySlug(t.Context(), p.ID, "v1.0")
		if err != nil || v.PrivacyLevel != store.Private {
			t.Errorf("version v1.0: %+v %v", v, err)
		}
	})
}
