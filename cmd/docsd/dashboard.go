package main

import (
	"fmt"
	"net/http"
	"strings"

	"docsd/internal/accounts"
	"docsd/internal/dashboard"
	"docsd/internal/hosting"
)

// signInRefusedShared says why the dashboard refuses sign-in when hosted
// docs share its origin, and which settings turn it on again; %s is the
// public URL. User-built pages are untrusted scripts: on the dashboard's
// origin they could act with a signed-in reader's session.
const signInRefusedShared = "Signing in is turned off on this server because its hosted documentation shares the dashboard's origin: " +
	"--docs-url is the same as --public-url (%s), so any project's pages could act with your session. " +
	"To turn signing in on, give the docs an origin of their own: remove --docs-url (docs are then served by a second listener, " +
	"--docs-addr, by default on the port after --addr's), or set --docs-url to another origin that reaches --docs-addr; " +
	"or serve docs on <project>.<domain> with --docs-domain."

// mountDashboard serves the dashboard's pages on mux and lets /graphql
// accept the dashboard's session (only with its CSRF header) — unless docs
// share the public origin: then no session is offered or honoured.
func (a *app) mountDashboard(mux *http.ServeMux, docs *hosting.Handler) {
	acc := accounts.New(a.store)
	acc.SetInvitationSignUp(a.settings.InvitationSignup)
	oidc := a.newOIDC()
	if oidc != nil {
		acc.SetPasswordSignIn(a.settings.PasswordSignIn, oidc.Name())
		// Organizations may require single sign-on only while there is one.
		acc.SetSSORequired(a.store.FindSSORequiredDomain)
	}
	refused := ""
	if a.urls().SharedOrigin() {
		refused = fmt.Sprintf(signInRefusedShared, a.settings.PublicURL)
	} else {
		a.resolver.Settings.SessionUser = acc.GraphQLUser
	}
	d := dashboard.New(dashboard.Config{
		Executor:           a.executor,
		Accounts:           acc,
		Secure:             strings.HasPrefix(a.settings.PublicURL, "https://"),
		ClientAddr:         func(r *http.Request) string { return clientAddr(r, a.settings.trustedProxies) },
		Logger:             a.logger,
		SignInRefused:      refused,
		OIDC:               oidc,
		Audit:              a.recordSignIn,
		AuditRetentionDays: a.settings.AuditRetentionDays,
		// The sign-in hand-off to docs subdomains.
		DocsHost:   docs.IsDocsHost,
		DocsScheme: docs.DocsScheme(),
	})
	for _, p := range dashboard.Paths {
		mux.Handle(p, d)
	}
}
