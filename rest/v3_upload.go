package rest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"docsd/graph"
	"docsd/internal/errs"
)

// The upload API, which publishes prebuilt docs. initiate and complete run
// graph mutations whose refusals are outcomes; this file gives each outcome
// RTD's status and text. The storage POST of local storage is the
// configured UploadReceiver's.

// v3UploadRoutes returns the upload API's routes.
func (s *Server) v3UploadRoutes() []*v3Route {
	type h = map[string]func(q *v3Req)
	const allow = "POST, OPTIONS"
	return []*v3Route{
		{path: "/api/v3/upload/initiate/", name: "Upload Initiate", desc: "POST starts an upload of prebuilt docs.", rule: v3AnyUser,
			allow: allow, methods: h{"POST": s.v3UploadInitiate}},
		{path: "/api/v3/upload/complete/", name: "Upload Complete", desc: "POST reports the end of an upload.", rule: v3AnyUser,
			allow: allow, methods: h{"POST": s.v3UploadComplete}},
		{path: "/api/v3/upload/artifacts/", name: "Upload Artifacts", desc: "POST stores an upload's archive (local storage).", rule: v3Open,
			allow: allow, methods: h{"POST": s.v3UploadArtifacts}},
	}
}

// The refusals of initiate and complete (RTD's texts).
var v3UploadRefusals = map[string]*v3Status{
	"project-not-found": v3Detail(http.StatusNotFound, "Project not found."),
	"build-not-found":   v3Detail(http.StatusNotFound, "Build not found."),
	"not-admin":         v3Detail(http.StatusForbidden, "You do not have admin permission for this project."),
	"disabled":          v3Detail(http.StatusForbidden, "Direct artifacts upload is not enabled for this project."),
	"inactive":          v3Detail(http.StatusForbidden, "Project is not active."),
	"too-many-pending":  v3Detail(http.StatusTooManyRequests, "Too many pending uploads for this project. Finish or cancel some builds before triggering new ones."),
	"not-pending":       v3Detail(http.StatusConflict, "Build is already in process."),
	"not-stored":        v3Detail(http.StatusBadRequest, "Uploaded artifacts file not found in storage. Make sure the upload was successful."),
}

// v3UploadSel is the selection of the Build and Version an upload answer
// embeds: their full representations.
func v3UploadSel(k *v3Kind) *v3Sel { return v3Selection(k, url.Values{}, nil, false) }

// v3UploadInput reads initiate's body into InitiateUploadInput variables,
// with REST's own type and presence messages.
func v3UploadInput(body map[string]any) (map[string]any, errs.Fields) {
	in := v3NewInput(body)
	in.str("project", "project")
	in.object("version", "version", func(sub *v3Input) {
		sub.str("name", "versionName")
		sub.str("type", "versionType")
		sub.str("commit", "versionCommit")
		sub.str("privacy_level", "versionPrivacyLevel")
	})
	present := func(obj map[string]any, key, field string) {
		v, ok := obj[key]
		switch {
		case !ok:
			in.failed.Add(field, errs.MsgRequired)
		case v == nil:
			in.failed.Add(field, errs.MsgNotNull)
		}
	}
	present(body, "project", "project")
	present(body, "version", "version")
	if obj, ok := body["version"].(map[string]any); ok {
		for _, key := range []string{"name", "type", "commit"} {
			present(obj, key, "version."+key)
		}
	}
	vars := map[string]any{"project": in.input["project"]}
	version, _ := in.input["version"].(map[string]any)
	for k, v := range version {
		if v != nil {
			vars[k] = v
		}
	}
	return vars, in.failed
}

// v3UploadFields are the graph's value messages on what REST could read,
// so that both kinds of messages are answered together.
func v3UploadFields(vars map[string]any, own errs.Fields) errs.Fields {
	str := func(k string) string { s, _ := vars[k].(string); return s }
	in := graph.InitiateUploadInput{Project: str("project"), VersionName: str("versionName"), VersionType: str("versionType"), VersionCommit: str("versionCommit")}
	if p, ok := vars["versionPrivacyLevel"].(string); ok {
		in.VersionPrivacyLevel = &p
	}
	f := errs.FieldsOf(graph.ValidateUploadInput(in))
	for field, name := range map[string]string{"version.name": "versionName", "version.type": "versionType", "version.commit": "versionCommit"} {
		if _, ok := vars[name]; !ok {
			delete(f, field) // absent: REST's own message speaks for it
		}
	}
	return v3MergeFields(own, f)
}

const v3InitiateOp = `mutation($input: InitiateUploadInput!) { initiateUpload(input: $input) { outcome retryAfter ` +
	`build { %BUILD% } version { %VERSION% } uploadUrl { url fields } ` + graph.PayloadErrors + ` } }`

// v3UploadInitiate answers `POST /api/v3/upload/initiate/`.
func (s *Server) v3UploadInitiate(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	vars, own := v3UploadInput(body)
	if f := v3UploadFields(vars, own); len(f) > 0 {
		q.fail(f.Err("rest.v3.upload"))
		return
	}
	bsel, vsel := v3UploadSel(v3BuildKind), v3UploadSel(v3VersionKind)
	op := &v3Op{}
	text := strings.NewReplacer("%BUILD%", op.sel(bsel), "%VERSION%", op.sel(vsel)).Replace(v3InitiateOp) + op.fragments()
	data, err := q.run(text, map[string]any{"input": vars})
	if err != nil {
		q.fail(err)
		return
	}
	res := data.at(0, []string{"initiateUpload"})
	outcome := data.str(data.field(res, "outcome"))
	if refusal, ok := v3UploadRefusals[outcome]; ok {
		if n := data.field(res, "retryAfter"); data.kind(n) == '0' {
			q.w.Header().Set("Retry-After", string(data.text(n)))
		}
		q.fail(refusal)
		return
	}
	project, _ := vars["project"].(string)
	c := q.ctxFor(project)
	upload := data.at(res, []string{"uploadUrl"})
	writeJSON(q.w, q.r, http.StatusCreated, map[string]any{
		"build": c.rendered(bsel, data, data.field(res, "build")),
		"upload_url": map[string]any{"fields": data.valueJSON(data.field(upload, "fields")),
			"url": data.valueJSON(data.field(upload, "url"))},
		"version": c.rendered(vsel, data, data.field(res, "version")),
	})
}

const v3CompleteOp = `mutation($input: CompleteUploadInput!) { completeUpload(input: $input) { outcome ` +
	`build { _project: project { slug } %BUILD% } ` + graph.PayloadErrors + ` } }`

// v3UploadComplete answers `POST /api/v3/upload/complete/`.
func (s *Server) v3UploadComplete(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	f := errs.Fields{}
	build, ok := v3Integer(body["build"])
	switch _, present := body["build"]; {
	case !present:
		f.Add("build", errs.MsgRequired)
	case body["build"] == nil:
		f.Add("build", errs.MsgNotNull)
	case !ok:
		f.Add("build", "A valid integer is required.")
	}
	in := v3NewInput(body)
	in.choice("status", "status", v3UploadStatus)
	status, isStr := in.input["status"].(string)
	switch _, present := body["status"]; {
	case in.failed.Has("status"):
		f.Add("status", in.failed["status"][0])
	case !present:
		f.Add("status", errs.MsgRequired)
	case !isStr:
		f.Add("status", errs.MsgNotNull)
	}
	if len(f) > 0 {
		q.fail(f.Err("rest.v3.upload"))
		return
	}
	bsel := v3UploadSel(v3BuildKind)
	op := &v3Op{}
	text := strings.Replace(v3CompleteOp, "%BUILD%", op.sel(bsel), 1) + op.fragments()
	data, err := q.run(text, map[string]any{"input": map[string]any{"build": build, "status": status}})
	if err != nil {
		q.fail(err)
		return
	}
	res := data.at(0, []string{"completeUpload"})
	outcome := data.str(data.field(res, "outcome"))
	if refusal, ok := v3UploadRefusals[outcome]; ok {
		q.fail(refusal)
		return
	}
	b := data.field(res, "build")
	code := http.StatusAccepted
	if outcome == "failed" {
		code = http.StatusOK
	}
	project := data.str(data.field(data.field(b, "_project"), "slug"))
	writeJSON(q.w, q.r, code, map[string]any{"build": q.ctxFor(project).rendered(bsel, data, b)})
}

// v3Integer reads a body value as DRF's IntegerField does: an integral
// number, or a string of one.
func v3Integer(v any) (int64, bool) {
	var text string
	switch t := v.(type) {
	case json.Number:
		text = t.String()
	case string:
		text = t
	default:
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(text, 64)
		if ferr != nil || f != float64(int64(f)) {
			return 0, false
		}
		n = int64(f)
	}
	return n, true
}

// v3UploadArtifacts is the storage POST of local storage; 404 when the
// archives go elsewhere (S3) or the upload API is off.
func (s *Server) v3UploadArtifacts(q *v3Req) {
	if s.cfg.UploadReceiver == nil {
		writeNotFound(q.w, q.r)
		return
	}
	s.cfg.UploadReceiver.ServeHTTP(q.w, q.r)
}
