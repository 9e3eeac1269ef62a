package store_test

import (
	"fmt"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestOrganizationSSO checks an organization's SSO domains, ssoRequired
// and auto-join on both databases: a domain belongs to one organization,
// at most 20; requiring single sign-on ends exactly the password-made
// dashboard sessions of the domains' people (superusers, unverified
// emails, other domains and single sign-on sessions are left) with the
// docs sessions handed off from them; the auto-join teams are joined once.
func TestOrganizationSSO(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		ana, _ := storetest.MustUser(t, s, "ana")
		acme := &store.Organization{Slug: "acme", Name: "Acme"}
		must(t, s.CreateOrganization(ctx, acme, ana.ID))
		globex := &store.Organization{Slug: "globex", Name: "Globex"}
		must(t, s.CreateOrganization(ctx, globex, ana.ID))

		must(t, s.SetOrganizationSSODomains(ctx, acme.ID, []string{"acme.example", "acme.example.org"}))
		err := s.SetOrganizationSSODomains(ctx, globex.ID, []string{"globex.example", "acme.example"})
		if got := errs.FieldsOf(err)["domains"]; len(got) != 1 || got[0] != store.MsgSSODomainTaken {
			t.Errorf("another organization's domain: %v", err)
		}
		var many []string
		for i := range store.MaxSSODomainsPerOrganization + 1 {
			many = append(many, fmt.Sprintf("d%d.globex.example", i))
		}
		wantKind(t, s.SetOrganizationSSODomains(ctx, globex.ID, many), errs.Conflict)
		must(t, s.SetOrganizationSSODomains(ctx, globex.ID, many[:store.MaxSSODomainsPerOrganization]))
		got, err := s.FindOrganizationSSODomains(ctx, []int64{acme.ID, globex.ID})
		must(t, err)
		wantStrings(t, "acme's domains", got[acme.ID], []string{"acme.example", "acme.example.org"})
		if len(got[globex.ID]) != store.MaxSSODomainsPerOrganization {
			t.Errorf("globex's domains = %v", got[globex.ID])
		}
		// Replacing the list frees the domains left out.
		must(t, s.SetOrganizationSSODomains(ctx, acme.ID, []string{"acme.example"}))
		must(t, s.SetOrganizationSSODomains(ctx, globex.ID, []string{"acme.example.org"}))

		// People: gus (verified, the domain), una (unverified), root (a
		// superuser of the domain), mal (another domain).
		people := map[string]*store.User{}
		for _, name := range []string{"gus", "una", "root", "mal"} {
			if name == "root" {
				people[name], _ = storetest.MustSuperuser(t, s, name)
			} else {
				people[name], _ = storetest.MustUser(t, s, name)
			}
		}
		must(t, s.SetUserEmail(ctx, "gus", "Gus@ACME.example"))
		must(t, s.SetUserEmail(ctx, "root", "root@acme.example"))
		must(t, s.SetUserEmail(ctx, "mal", "mal@example.net"))
		if _, err := db.ExecContext(ctx, rebind(d, `UPDATE users SET email = ?, email_verified = ? WHERE username = ?`), "una@acme.example", false, "una"); err != nil {
			t.Fatal(err)
		}
		sessions := map[string]string{}
		for name, u := range people {
			v, err := s.CreateDashboardSession(ctx, u.ID)
			must(t, err)
			sessions[name] = v
		}
		gusOIDC, err := s.CreateDashboardSessionBy(ctx, people["gus"].ID, store.SessionByOIDC, "id-token")
		must(t, err)
		state := "s-state-of-the-browser-0123456789abcdefghijk"
		code, err := s.CreateDocsLoginCode(ctx, sessions["gus"], "handbook.docs.test", state)
		must(t, err)
		docs, err := s.RedeemDocsLoginCode(ctx, code, "handbook.docs.test", state, "handbook")
		must(t, err)
		if _, err := s.FindUserByDocsSession(ctx, docs, "handbook"); err != nil {
			t.Fatalf("gus's docs session: %v", err)
		}

		if domain, err := s.FindSSORequiredDomain(ctx, people["gus"]); err != nil || domain != "" {
			t.Errorf("before ssoRequired: %q, %v", domain, err)
		}
		on := true
		o, err := s.UpdateOrganization(ctx, acme.ID, store.OrganizationUpdate{SSORequired: &on})
		must(t, err)
		if !o.SSORequired {
			t.Errorf("ssoRequired not stored")
		}
		for name, want := range map[string]bool{"gus": false, "una": true, "root": true, "mal": true} {
			_, err := s.FindUserByDashboardSession(ctx, sessions[name])
			if live := err == nil; live != want {
				t.Errorf("%s's password session live = %v, want %v", name, live, want)
			}
		}
		if _, err := s.FindUserByDashboardSession(ctx, gusOIDC); err != nil {
			t.Errorf("gus's single sign-on session ended: %v", err)
		}
		if _, err := s.FindUserByDocsSession(ctx, docs, "handbook"); !errs.Is(err, errs.NotFound) {
			t.Errorf("gus's handed-off docs session: %v, want NotFound", err)
		}
		gus, err := s.FindUserByUsername(ctx, "gus")
		must(t, err)
		if domain, err := s.FindSSORequiredDomain(ctx, gus); err != nil || domain != "acme.example" {
			t.Errorf("gus's required domain = %q, %v", domain, err)
		}
		mal, err := s.FindUserByUsername(ctx, "mal")
		must(t, err)
		if domain, err := s.FindSSORequiredDomain(ctx, mal); err != nil || domain != "" {
			t.Errorf("mal's required domain = %q, %v", domain, err)
		}

		// Auto-join: the marked teams of the domain's organization, once.
		writers := &store.Team{OrganizationID: acme.ID, Slug: "writers", Name: "Writers", AutoJoinEmailUsers: true}
		must(t, s.CreateTeam(ctx, writers, nil))
		other := &store.Team{OrganizationID: globex.ID, Slug: "all", Name: "All", AutoJoinEmailUsers: true}
		must(t, s.CreateTeam(ctx, other, nil))
		joined, err := s.JoinAutoJoinTeams(ctx, gus.ID, "gus@Acme.Example")
		must(t, err)
		if len(joined) != 1 || joined[0].ID != writers.ID {
			t.Errorf("joined = %+v, want writers", joined)
		}
		joined, err = s.JoinAutoJoinTeams(ctx, gus.ID, "gus@acme.example")
		must(t, err)
		if len(joined) != 0 {
			t.Errorf("joined again = %+v, want none", joined)
		}
	})
}
