package dashboard

import (
	"net/http"
	"net/url"
	"regexp"

	"docsd/internal/sitepath"
)

// The dashboard's half of the sign-in hand-off to a docs host
// (/accounts/docs-login/): a signed-in user arrives from the docs host's
// /_/login/start/ with its host, the page to return to and the browser's
// state; the dashboard makes a one-time code for its session, that host
// and that state, and sends the browser back to /_/login/complete/. No
// confirmation page: the docs session it leads to carries the user's own
// rights limited to that host's projects, so a forged start gains an
// attacker nothing.

// handoffState is a state the docs host makes: 43 base64url characters.
var handoffState = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

func (d *Dashboard) handleDocsLogin(w http.ResponseWriter, r *http.Request, s *session) {
	q := r.URL.Query()
	host, state := q.Get("host"), q.Get("state")
	next := sitepath.Or(q.Get("next"), "/")
	switch {
	case d.cfg.DocsHost == nil || !d.cfg.DocsHost(host):
		d.render(w, r, s, http.StatusBadRequest, "error", &page{Title: "Sign-in failed",
			Errors: formErrors{"": "This sign-in link does not point to documentation served here."}})
		return
	case !handoffState.MatchString(state):
		d.render(w, r, s, http.StatusBadRequest, "error", &page{Title: "Sign-in failed",
			Errors: formErrors{"": "This sign-in link is incomplete. Go back to the documentation and sign in again."}})
		return
	}
	code, err := d.cfg.Accounts.DocsLoginCode(r.Context(), s.value, host, state)
	if err != nil {
		d.failed(w, r, s, err)
		return
	}
	target := d.cfg.DocsScheme + "://" + host + "/_/login/complete/?" + url.Values{"code": {code}, "state": {state}, "next": {next}}.Encode()
	http.Redirect(w, r, target, http.StatusFound)
}
