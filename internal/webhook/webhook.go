// Package webhook receives the incoming webhooks of projects: GitHub,
// GitLab, Bitbucket and a generic API endpoint, under /api/v2/webhook/. A
// push queues builds of the active versions of the pushed refs; created or
// deleted refs queue a version sync; pull/merge requests build previews
// when the project enables them. Every request is checked against the
// integration's secret, and every exchange with a known integration is
// recorded for the dashboard.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"docsd/internal/artifacts"
	"docsd/internal/errs"
	"docsd/internal/slashredirect"
	"docsd/store"
)

// Handler serves /api/v2/webhook/.
type Handler struct {
	Store     *store.Store
	Artifacts artifacts.Storage // removes the files of closed pull-request previews
	// Authenticate reads an `Authorization` header value as API v3 does:
	// nil user without credentials, an Unauthenticated error carrying v3's
	// message for bad ones.
	Authenticate func(ctx context.Context, header string) (*store.User, error)
	// Wake tells the build workers that work was queued; may be nil.
	Wake   func()
	Logger *slog.Logger
	// DeliveryRetention is how long processed GitHub delivery ids are
	// remembered to refuse replays; 0 means DefaultDeliveryRetention.
	DeliveryRetention time.Duration
}

// DefaultDeliveryRetention is how long a processed GitHub delivery id is
// remembered: GitHub lets a delivery be redelivered for 3 days, and a
// week covers that with margin.
const DefaultDeliveryRetention = 7 * 24 * time.Hour

// maxBody bounds a webhook request body (GitHub sends at most 25 MB).
const maxBody = 25 << 20

// providers maps the provider URL segments to their integration types.
var providers = map[string]string{
	"github":    store.GitHubWebhook,
	"gitlab":    store.GitLabWebhook,
	"bitbucket": store.BitbucketWebhook,
	"generic":   store.APIWebhook,
}

var (
	providerRoute = regexp.MustCompile(`^/api/v2/webhook/(github|gitlab|bitbucket|generic)/([^/.]+)/$`)
	idRoute       = regexp.MustCompile(`^/api/v2/webhook/([^/.]+)/([^/.]+)/$`)
)

// answer is a response: a status, a JSON body and extra headers.
type answer struct {
	status int
	body   any
	header http.Header
}

type detail struct {
	Detail string `json:"detail"`
}

func fail(status int, msg string) *answer { return &answer{status: status, body: detail{msg}} }

// The refusals and the unhandled-event answer, with Read the Docs' texts.
var (
	errProjectNotFound = fail(http.StatusNotFound, "Project not found")
	errDisabled        = fail(http.StatusNotAcceptable, "This project is currently disabled")
	errNotFound        = fail(http.StatusNotFound, "Not found.")
	errMultiple        = fail(http.StatusBadRequest, "Multiple integrations found for this project. Please use the webhook URL with an explicit integration ID.")
	errNoSecret        = fail(http.StatusBadRequest, "This webhook doesn't have a secret configured. For security reasons, webhooks without a secret are not permitted.")
	errInvalidRequest  = fail(http.StatusBadRequest, "Invalid request")
	errRefRequired     = fail(http.StatusBadRequest, `Parameter "ref" is required`)
	errNoCredentials   = fail(http.StatusForbidden, errs.MsgNoCredentials)
	unhandled          = &answer{status: http.StatusOK, body: detail{"Unhandled webhook event"}}
)

// request is one webhook call being processed.
type request struct {
	r           *http.Request
	raw         []byte         // the raw body, for signatures
	payload     map[string]any // the decoded JSON document (or form fields)
	form        url.Values     // form fields, for form posts
	project     *store.Project
	integration *store.Integration
}

// ServeHTTP routes a webhook request: /api/v2/webhook/<provider>/<project>/
// (provider github, gitlab, bitbucket or generic) and
// /api/v2/webhook/<project>/<integration id>/ take POST and OPTIONS.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Frame-Options", "DENY")
	provider, slug, id, ok := route(r.URL.Path)
	if !ok {
		if slashredirect.MissesSlash(r, func(s *http.Request) bool { _, _, _, ok := route(s.URL.Path); return ok }) {
			w.Header().Set("Allow", "POST, OPTIONS")
			slashredirect.Answer(w, r)
			return
		}
		write(w, r, errNotFound)
		return
	}
	w.Header().Set("Allow", "POST, OPTIONS")
	switch r.Method {
	case http.MethodPost:
	case http.MethodOptions:
		write(w, r, &answer{status: http.StatusOK, body: map[string]any{
			"name": "Webhook", "description": "Incoming webhook of a documentation project.",
			"parses":  []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"},
			"renders": []string{"application/json"},
		}})
		return
	default:
		write(w, r, fail(http.StatusMethodNotAllowed, `Method "`+r.Method+`" not allowed.`))
		return
	}
	req := &request{r: r}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		write(w, r, fail(http.StatusRequestEntityTooLarge, "Request body too large."))
		return
	}
	req.raw = raw
	a := h.handle(req, provider, slug, id)
	body := write(w, r, a)
	if req.integration != nil {
		h.record(r.Context(), req, a.status, body)
	}
}

// route parses a webhook path: the provider segment (or "" for the
// integration-id form), the project slug and the integration id.
func route(path string) (provider, slug, id string, ok bool) {
	if m := providerRoute.FindStringSubmatch(path); m != nil {
		return m[1], m[2], "", true
	}
	if m := idRoute.FindStringSubmatch(path); m != nil {
		return "", m[1], m[2], true
	}
	return "", "", "", false
}

// handle runs the processing order, each step answering its own refusal:
// the project by slug (404), the project enabled (406), its integration
// (404, or 400 when a provider URL matches several), a stored secret (400),
// the request's authenticity (400), then the event. The generic webhook
// authenticates in its own way, before the enabled check.
func (h *Handler) handle(req *request, provider, slug, id string) *answer {
	ctx := req.r.Context()
	if provider == "generic" {
		return h.generic(req, slug, "")
	}
	p, a := h.findProject(req, slug)
	if a != nil {
		return a
	}
	if id != "" {
		// A generic integration named by id authenticates first, as on its
		// provider URL (the disabled check comes after that).
		if in, a := h.integration(ctx, p, "", id); a == nil && in.Type == store.APIWebhook {
			return h.generic(req, slug, id)
		}
	}
	if p.Skip {
		return errDisabled
	}
	in, a := h.integration(ctx, p, providers[provider], id)
	if a != nil {
		return a
	}
	if in.Type == store.APIWebhook {
		return h.generic(req, slug, id)
	}
	req.integration = in
	if in.Secret == "" {
		return errNoSecret
	}
	if a := authentic(req, in); a != nil {
		return a
	}
	if err := req.decode(); err != nil {
		return errInvalidRequest
	}
	switch in.Type {
	case store.GitHubWebhook:
		if a := h.firstDelivery(req); a != nil {
			return a
		}
		return h.github(req)
	case store.GitLabWebhook:
		return h.gitlab(req)
	case store.BitbucketWebhook:
		return h.bitbucket(req)
	}
	return unhandled
}

// findProject is the first step: the project the URL names.
func (h *Handler) findProject(req *request, slug string) (*store.Project, *answer) {
	p, err := h.Store.FindProjectBySlug(req.r.Context(), slug)
	if err != nil {
		if errs.Is(err, errs.NotFound) {
			return nil, errProjectNotFound
		}
		return nil, h.internal(err)
	}
	req.project = p
	return p, nil
}

// integration finds the integration a URL names: by id (of any type, of
// this project) or the project's single integration of typ.
func (h *Handler) integration(ctx context.Context, p *store.Project, typ, id string) (*store.Integration, *answer) {
	if id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, errNotFound
		}
		in, err := h.Store.FindIntegration(ctx, p.ID, n)
		if err != nil {
			if errs.Is(err, errs.NotFound) {
				return nil, errNotFound
			}
			return nil, h.internal(err)
		}
		return in, nil
	}
	all, err := h.Store.FindIntegrations(ctx, p.ID)
	if err != nil {
		return nil, h.internal(err)
	}
	var found []*store.Integration
	for _, in := range all {
		if in.Type == typ {
			found = append(found, in)
		}
	}
	switch len(found) {
	case 0:
		return nil, errNotFound
	case 1:
		return found[0], nil
	}
	return nil, errMultiple
}

// decode reads the payload: JSON, or a form whose `payload` field holds
// the JSON document (GitHub), or plain form fields (generic).
func (req *request) decode() error {
	ct := req.r.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/x-www-form-urlencoded") || strings.HasPrefix(ct, "multipart/form-data") {
		r2 := req.r.Clone(req.r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(req.raw))
		if err := r2.ParseMultipartForm(maxBody); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			return err
		}
		req.form = r2.PostForm
		if doc := req.form.Get("payload"); doc != "" {
			return json.Unmarshal([]byte(doc), &req.payload)
		}
		req.payload = map[string]any{}
		for k, vs := range req.form {
			if len(vs) == 1 {
				req.payload[k] = vs[0]
			} else {
				list := make([]any, len(vs))
				for i, v := range vs {
					list[i] = v
				}
				req.payload[k] = list
			}
		}
		return nil
	}
	if len(bytes.TrimSpace(req.raw)) == 0 {
		req.payload = map[string]any{}
		return nil
	}
	return json.Unmarshal(req.raw, &req.payload)
}

// internal answers a failure of docsd itself: 503 with Retry-After when the
// database does not answer, else 500.
func (h *Handler) internal(err error) *answer {
	if h.Logger != nil {
		h.Logger.Error("webhook", "err", err)
	}
	if errs.Is(err, errs.Unavailable) {
		a := fail(http.StatusServiceUnavailable, errs.MsgUnavailable)
		a.header = http.Header{"Retry-After": {errs.RetryAfterUnavailable}}
		return a
	}
	return fail(http.StatusInternalServerError, errs.MsgServerError)
}

// write sends an answer as compact JSON and returns the body written.
func write(w http.ResponseWriter, r *http.Request, a *answer) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a.body); err != nil {
		a = fail(http.StatusInternalServerError, errs.MsgServerError)
		buf.Reset()
		enc.Encode(a.body)
	}
	body := bytes.TrimRight(buf.Bytes(), "\n")
	for k, vs := range a.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return body
}

// sensitiveHeaders are recorded with their values hidden: a user's API key
// and GitLab's copy of the secret.
var sensitiveHeaders = map[string]bool{"Authorization": true, "X-Gitlab-Token": true, "Cookie": true}

// record stores the exchange for the integration's dashboard page.
func (h *Handler) record(ctx context.Context, req *request, status int, body []byte) {
	headers := map[string]string{}
	names := make([]string, 0, len(req.r.Header))
	for k := range req.r.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := strings.Join(req.r.Header[k], ", ")
		if sensitiveHeaders[http.CanonicalHeaderKey(k)] {
			v = "***"
		}
		headers[k] = v
	}
	hj, _ := json.Marshal(headers)
	err := h.Store.RecordWebhookExchange(context.WithoutCancel(ctx), store.WebhookExchange{
		IntegrationID: req.integration.ID, RequestHeaders: string(hj), RequestBody: recordedBody(req.r.Header.Get("Content-Type"), req.raw),
		ResponseStatus: status, ResponseBody: string(body),
	})
	if err != nil && h.Logger != nil {
		h.Logger.Warn("recording webhook exchange", "err", err)
	}
}

// maxRecordedBody bounds what an exchange keeps of a request body: anyone
// may post to a webhook URL, signed or not.
const maxRecordedBody = 64 << 10

// recordedBody is the request body as an exchange keeps it: a generic
// webhook's `token` field (the integration's secret) hidden, and at most
// maxRecordedBody bytes.
func recordedBody(contentType string, raw []byte) string {
	body := raw
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "application/x-www-form-urlencoded" {
		if form, err := url.ParseQuery(string(raw)); err == nil && form.Has("token") {
			form.Set("token", "***")
			body = []byte(form.Encode())
		}
	} else {
		var doc map[string]json.RawMessage
		if json.Unmarshal(raw, &doc) == nil {
			if _, ok := doc["token"]; ok {
				doc["token"] = json.RawMessage(`"***"`)
				body, _ = json.Marshal(doc)
			}
		}
	}
	if len(body) > maxRecordedBody {
		return strings.ToValidUTF8(string(body[:maxRecordedBody]), "") + "\n… (truncated)"
	}
	return string(body)
}

func (h *Handler) wake() {
	if h.Wake != nil {
		h.Wake()
	}
}
