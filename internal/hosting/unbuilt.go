package hosting

import (
	"bytes"
	"html/template"
	"net/http"
	"strconv"

	"docsd/internal/choices"
	"docsd/store"
)

// unbuiltPage is the page of a version with nothing published yet (see
// docs/user-guide/reading.md#pages-that-do-not-exist): self-contained, no
// scripts.
var unbuiltPage = template.Must(template.New("unbuilt").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}}</title>
<style>body{font-family:sans-serif;max-width:40em;margin:4em auto;padding:0 1em;color:#333}a{color:#2563eb}</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="status">{{.Status}}{{if .BuildURL}} <a href="{{.BuildURL}}">Build #{{.BuildID}}</a>{{end}}</p>
{{- if .Others}}
<h2>Other versions</h2>
<ul>
{{- range .Others}}
<li><a href="{{.URL}}">{{.Slug}}</a></li>
{{- end}}
</ul>
{{- end}}
</body>
</html>
`))

type unbuiltLink struct{ Slug, URL string }

// sendUnbuiltPage answers the unbuilt page, a 404, for version ver of x,
// which the reader may see and which has no published tree.
func (rq *request) sendUnbuiltPage(x *store.Project, ver *store.Version) error {
	data := struct {
		Title, Status, BuildURL string
		BuildID                 int64
		Others                  []unbuiltLink
	}{Title: x.Name + " " + ver.VerboseName, Status: "This version has not been built yet."}
	bs, _, err := rq.h.store.FindBuilds(rq.ctx, store.BuildFilter{VersionID: &ver.ID, Limit: 1})
	if err != nil {
		return err
	}
	if len(bs) > 0 {
		b := bs[0]
		switch {
		case b.State != store.Finished:
			data.Status = "This version is being built right now (" + choices.BuildStates.Name(b.State) + "). Reload this page in a minute."
		case !b.Success:
			data.Status = "The last build of this version failed, so there is nothing to show yet."
			data.BuildURL = rq.urls.BuildPage(x.Slug, b.ID)
			data.BuildID = b.ID
		}
	}
	menu, err := rq.versionsMenu(x)
	if err != nil {
		return err
	}
	t, err := rq.target(x)
	if err != nil {
		return err
	}
	for _, v := range menu {
		data.Others = append(data.Others, unbuiltLink{Slug: v.Slug, URL: rq.urls.Docs(t, v.Slug, "")})
	}
	var buf bytes.Buffer
	if err := unbuiltPage.Execute(&buf, data); err != nil {
		return err
	}
	body := rq.h.withSignIn(rq.r, buf.Bytes())
	h := rq.w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-cache")
	if rq.private || !x.VersionIsPublic(ver) {
		h.Set("Cache-Control", "private, no-cache")
	}
	h.Set("X-Robots-Tag", "noindex")
	h.Set("X-Content-Type-Options", "nosniff")
	rq.w.WriteHeader(http.StatusNotFound)
	if rq.r.Method != http.MethodHead {
		rq.w.Write(body)
	}
	return nil
}
