package main

import (
	"net/http"
	"strings"

	"docsd/accounts"
	"docsd/dashboard"
)

// mountDashboard serves the dashboard's pages on mux and lets /graphql
// accept the dashboard's session (only with its CSRF header).
func (a *app) mountDashboard(mux *http.ServeMux) {
	acc := accounts.New(a.store)
	a.resolver.Settings.SessionUser = acc.GraphQLUser
	d := dashboard.New(dashboard.Config{
		Executor:   a.executor,
		Accounts:   acc,
		Secure:     strings.HasPrefix(a.settings.PublicURL, "https://"),
		ClientAddr: func(r *http.Request) string { return clientAddr(r, a.settings.trustedProxies) },
		Logger:     a.logger,
	})
	for _, p := range dashboard.Paths {
		mux.Handle(p, d)
	}
}
