package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestOrganizationAuditExamples runs the audit log's organization
// examples through a real server, on both databases: bob, a reader of
// acme's private handbook through its read-only team, reads a page with a
// docs session; alice, acme's owner, finds the page view in the API (with
// the organization filled from the project) and in the organization's CSV
// export taken with her API key; bob, a reader only, finds nothing.
func TestOrganizationAuditExamples(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		x := newDocsSite(t, d, false)
		today := time.Now().UTC().Format(time.DateOnly)
		aliceKey := newKey(t, x.s, "alice")
		org, err := x.s.FindOrganizationBySlug(ctx, "acme")
		must(t, err)
		handbook, err := x.s.FindProjectBySlug(ctx, "handbook")
		must(t, err)

		// 1. bob reads the private page through a docs session.
		loc, state := x.start("handbook", x.page)
		x.dash.signIn("bob", "bob-password")
		x.complete("handbook", x.handOff("handbook", loc, state, x.page), x.page)
		const browser = "Mozilla/5.0 (X11; Linux x86_64)"
		if resp, _ := x.get("handbook", x.page, "User-Agent", browser); resp.StatusCode != http.StatusOK {
			t.Fatalf("1. the private page with a docs session: %d", resp.StatusCode)
		}

		// 2. alice (owner) lists it.
		query := "/api/v3/audit-logs/?action=pageview&project=handbook&date_after=" + today
		status, body := send(t, "GET", x.base+query, aliceKey, "")
		var page struct {
			Count   int
			Results []map[string]any
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil || status != http.StatusOK || page.Count != 1 || len(page.Results) != 1 {
			t.Fatalf("2. alice's page views: %d %s", status, body)
		}
		want := map[string]any{"action": "pageview", "auth_backend": "docs-session", "browser": browser, "data": nil,
			"organization": map[string]any{"id": org.ID, "slug": "acme"},
			"project":      map[string]any{"id": handbook.ID, "slug": "handbook"},
			"resource":     x.page, "user": map[string]any{"id": x.bob.ID, "username": "bob"}}
		for k, v := range want {
			if got := mustJSON(t, page.Results[0][k]); got != mustJSON(t, v) {
				t.Errorf("2. entry %s = %s, want %s", k, got, mustJSON(t, v))
			}
		}

		// 3. The same request by bob: empty, not refused.
		if status, body := send(t, "GET", x.base+query, x.bobsKey, ""); status != http.StatusOK ||
			canonicalJSON(t, body) != `{"count":0,"next":null,"previous":null,"results":[]}` {
			t.Errorf("3. bob's view: %d %s", status, body)
		}

		// 5. The organization's CSV, with alice's key instead of a session.
		resp, csv := getWithKey(t, x.base+"/organizations/acme/security-log/?download=true&date_after="+today, aliceKey)
		wantName := `attachment; filename="docsd_organization_security_logs_acme_` + today + "_" + today + `.csv"`
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || resp.Header.Get("Content-Disposition") != wantName {
			t.Fatalf("5. CSV: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
		}
		lines := strings.Split(strings.TrimSpace(csv), "\r\n")
		row := ",bob,handbook,acme,pageview," + x.page + ",127.0.0.1," + browser + ","
		date := ""
		if len(lines) == 2 && len(lines[1]) > len(time.DateTime) {
			date = lines[1][:len(time.DateTime)]
		}
		if _, err := time.Parse(time.DateTime, date); err != nil || !strings.HasSuffix(lines[1], row) ||
			lines[0] != "Date (UTC),User,Project,Organization,Action,Resource,IP,Browser,Extra data" {
			t.Errorf("5. CSV body, want the header and one row ending %q:\n%s", row, csv)
		}
	})
}
