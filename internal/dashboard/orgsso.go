package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"docsd/graph"
)

// The organization's single sign-on page (/organizations/<o>/authorization/):
// its SSO domains (superusers change them), whether it requires single
// sign-on (owners change it) and which teams people of those domains join
// at their first single sign-on (owners change that per team). Owners and
// superusers see the page; other people get the not-found page.

// orgSSO is an organization as its single sign-on page shows it.
type orgSSO struct {
	Slug, Name    string
	ViewerIsOwner bool
	SSODomains    []string `json:"ssoDomains"`
	SSORequired   bool     `json:"ssoRequired"`
	Teams         struct {
		Nodes []struct {
			Slug, Name, Access string
			AutoJoinEmailUsers bool
		}
	}
	// ViewerIsSuperuser: the viewer may change the domains.
	ViewerIsSuperuser bool `json:"-"`
}

const orgSSOQuery = `query($slug: String!) {
	organization(slug: $slug) { slug name viewerIsOwner ssoDomains ssoRequired
		teams(first: 100) { nodes { slug name access autoJoinEmailUsers } } }
}`

const (
	setSSODomainsMutation = `mutation($input: SetOrganizationSsoDomainsInput!) { setOrganizationSsoDomains(input: $input) { organization { slug } ` + graph.PayloadErrors + ` } }`
)

func (d *Dashboard) mountOrganizationSSO() {
	d.mux.HandleFunc("GET /organizations/{org}/authorization/{$}", d.signedIn(d.handleOrgSSO))
	d.mux.HandleFunc("POST /organizations/{org}/authorization/domains/{$}", d.signedIn(d.handleOrgSSODomains))
	d.mux.HandleFunc("POST /organizations/{org}/authorization/required/{$}", d.signedIn(d.handleOrgSSORequired))
	d.mux.HandleFunc("POST /organizations/{org}/authorization/teams/{team}/{$}", d.signedIn(d.handleOrgSSOTeam))
}

func (d *Dashboard) handleOrgSSO(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderOrgSSO(w, r, s, http.StatusOK, &page{})
}

// renderOrgSSO renders the page with pg's form and errors; the domains
// field shows the stored domains, one a line, unless the form has its own.
func (d *Dashboard) renderOrgSSO(w http.ResponseWriter, r *http.Request, s *session, code int, pg *page) {
	var out struct {
		Organization *orgSSO
	}
	if err := d.run(r, s, orgSSOQuery, map[string]any{"slug": r.PathValue("org")}, &out); err != nil || out.Organization == nil {
		d.failed(w, r, s, err)
		return
	}
	o := out.Organization
	o.ViewerIsSuperuser = s.viewer.User.IsSuperuser
	if !o.ViewerIsOwner && !o.ViewerIsSuperuser {
		d.notFound(w, r, s)
		return
	}
	if pg.Form == nil {
		pg.Form = map[string]string{}
	}
	if _, ok := pg.Form["domains"]; !ok {
		pg.Form["domains"] = strings.Join(o.SSODomains, "\n")
	}
	pg.Title, pg.OrgSSO = o.Name+" · Single sign-on", o
	d.render(w, r, s, code, "organizationsso", pg)
}

// orgSSOWrite runs one of the page's mutations; a refusal of the input is
// shown next to the form's field (fields maps the API's field names to
// the form's), anything else as the failure it is.
func (d *Dashboard) orgSSOWrite(w http.ResponseWriter, r *http.Request, s *session, mutation string, input map[string]any, form map[string]string, fields map[string]string) {
	err := d.run(r, s, mutation, map[string]any{"input": input}, nil)
	d.formWritten(w, r, s, err, "/organizations/"+url.PathEscape(r.PathValue("org"))+"/authorization/", form, fields,
		func(code int, pg *page) { d.renderOrgSSO(w, r, s, code, pg) })
}

func (d *Dashboard) handleOrgSSODomains(w http.ResponseWriter, r *http.Request, s *session) {
	text := r.PostFormValue("domains")
	domains := []string{}
	for _, line := range strings.FieldsFunc(text, func(c rune) bool { return c == '\n' || c == '\r' || c == ',' }) {
		if line = strings.TrimSpace(line); line != "" {
			domains = append(domains, line)
		}
	}
	d.orgSSOWrite(w, r, s, setSSODomainsMutation, map[string]any{"organization": r.PathValue("org"), "domains": domains},
		map[string]string{"domains": text}, map[string]string{"domains": "domains", "": ""})
}

func (d *Dashboard) handleOrgSSORequired(w http.ResponseWriter, r *http.Request, s *session) {
	on := r.PostFormValue("sso_required") == "on"
	d.orgSSOWrite(w, r, s, updateOrganizationMutation, map[string]any{"slug": r.PathValue("org"), "ssoRequired": on},
		map[string]string{}, map[string]string{"sso_required": "sso_required"})
}

func (d *Dashboard) handleOrgSSOTeam(w http.ResponseWriter, r *http.Request, s *session) {
	on := r.PostFormValue("auto_join") == "on"
	d.orgSSOWrite(w, r, s, updateTeamMutation,
		map[string]any{"organization": r.PathValue("org"), "slug": r.PathValue("team"), "autoJoinEmailUsers": on},
		map[string]string{}, map[string]string{})
}
