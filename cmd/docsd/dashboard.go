package main

import (
	"net/http"
	"strings"

	"docsd/accounts"
	"docsd/dashboard"
)

// signInRefusedShared is why the dashboard refuses sign-in when hosted
// docs share its origin (issue 13, Security).
const signInRefusedShared = "Signing in is turned off on this server: its hosted documentation is served from this same origin " +
	"(--docs-url is --public-url), so any project's pages could act with your session. " +
	"The operator can serve docs on an origin of their own with --docs-addr and --docs-url (the default), or with --docs-domain."

// mountDashboard serves the dashboard's pages on mux and lets /graphql
// accept the dashboard's session (only with its CSRF header) — unless docs
// share the public origin: then no session is offered or honoured.
func (a *app) mountDashboard(mux *http.ServeMux) {
	acc := accounts.New(a.store)
	refused := ""
	if a.urls().SharedOrigin() {
		refused = signInRefusedShared
	} else {
		a.resolver.Settings.SessionUser = acc.GraphQLUser
	}
	d := dashboard.New(dashboard.Config{
		Executor:      a.executor,
		Accounts:      acc,
		Secure:        strings.HasPrefix(a.settings.PublicURL, "https://"),
		ClientAddr:    func(r *http.Request) string { return clientAddr(r, a.settings.trustedProxies) },
		Logger:        a.logger,
		SignInRefused: refused,
	})
	for _, p := range dashboard.Paths {
		mux.Handle(p, d)
	}
}
