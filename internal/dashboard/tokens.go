package dashboard

import (
	"net/http"
	"strings"
)

// The API tokens page (/accounts/tokens/): the signed-in user's v3/GraphQL
// keys, through viewer { apiTokens }, createApiToken and revokeApiToken.
// A new key is shown on the answer to the form that made it, and never
// again: the page is not a redirect target, and answers are no-store.

func (d *Dashboard) mountTokens() {
	d.mux.HandleFunc("GET /accounts/tokens/{$}", d.signedIn(d.handleTokens))
	d.mux.HandleFunc("POST /accounts/tokens/{$}", d.signedIn(d.handleTokenCreate))
	d.mux.HandleFunc("POST /accounts/tokens/{id}/delete/{$}", d.signedIn(d.handleTokenRevoke))
}

func (d *Dashboard) handleTokens(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderTokens(w, r, s, http.StatusOK, &page{})
}

// renderTokens lists the keys on pg, with code.
func (d *Dashboard) renderTokens(w http.ResponseWriter, r *http.Request, s *session, code int, pg *page) {
	var out struct {
		Viewer struct{ APITokens []apiToken }
	}
	if err := d.run(r, s, tokensQuery, nil, &out); err != nil {
		d.failed(w, r, s, err)
		return
	}
	pg.Title, pg.Tokens = "API tokens", out.Viewer.APITokens
	d.render(w, r, s, code, "tokens", pg)
}

func (d *Dashboard) handleTokenCreate(w http.ResponseWriter, r *http.Request, s *session) {
	var out struct {
		CreateAPIToken struct{ Key *string } `json:"createApiToken"`
	}
	form := map[string]string{"name": strings.TrimSpace(r.PostFormValue("name"))}
	if err := d.run(r, s, createTokenMutation, map[string]any{"name": form["name"]}, &out); err != nil || out.CreateAPIToken.Key == nil {
		d.renderTokens(w, r, s, formStatus(err), &page{Form: form, Errors: formErrorsOf(err, map[string]string{"name": "name"})})
		return
	}
	d.renderTokens(w, r, s, http.StatusOK, &page{NewKey: *out.CreateAPIToken.Key})
}

func (d *Dashboard) handleTokenRevoke(w http.ResponseWriter, r *http.Request, s *session) {
	if err := d.run(r, s, revokeTokenMutation, map[string]any{"id": r.PathValue("id")}, nil); err != nil {
		d.failed(w, r, s, err)
		return
	}
	http.Redirect(w, r, "/accounts/tokens/", http.StatusSeeOther)
}
