package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"docsd/internal/errs"
	"docsd/store"
)

// authentic is the authenticity step: the request proves it knows the
// integration's secret. All comparisons are constant-time and signatures
// cover the raw body.
func authentic(req *request, in *store.Integration) *answer {
	switch in.Type {
	case store.GitHubWebhook:
		if !validSignature(req.r.Header.Get("X-Hub-Signature-256"), in.Secret, req.raw) {
			return fail(http.StatusBadRequest, "Payload not valid, invalid or missing signature")
		}
	case store.GitLabWebhook:
		if !equalSecret(req.r.Header.Get("X-Gitlab-Token"), in.Secret) {
			return fail(http.StatusBadRequest, "Payload not valid, invalid or missing token")
		}
	case store.BitbucketWebhook:
		if !validSignature(req.r.Header.Get("X-Hub-Signature"), in.Secret, req.raw) {
			return fail(http.StatusBadRequest, "Payload not valid")
		}
	}
	return nil
}

// validSignature checks `sha256=<hex HMAC-SHA256(secret, body)>`.
func validSignature(header, secret string, body []byte) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(header), []byte(want))
}

// equalSecret compares a presented token with the secret in constant time;
// an empty secret never matches.
func equalSecret(given, secret string) bool {
	return secret != "" && subtle.ConstantTimeCompare([]byte(given), []byte(secret)) == 1
}

// str returns the string at a path of nested JSON objects, "" when absent
// or not a string.
func str(m map[string]any, path ...string) string {
	v, _ := lookup(m, path...)
	s, _ := v.(string)
	return s
}

// lookup follows a path of nested JSON objects.
func lookup(m map[string]any, path ...string) (any, bool) {
	var cur any = m
	for _, k := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// truthy reports whether a JSON value is true.
func truthy(v any) bool { b, _ := v.(bool); return b }

// refName strips `refs/heads/` or `refs/tags/` from a pushed ref.
func refName(ref string) string {
	for _, p := range []string{"refs/heads/", "refs/tags/"} {
		if strings.HasPrefix(ref, p) {
			return strings.TrimPrefix(ref, p)
		}
	}
	return ref
}

// number renders a JSON number (or string) as a pull-request number.
func number(v any) string {
	switch n := v.(type) {
	case float64:
		if n == float64(int64(n)) && n > 0 {
			return strconv.FormatInt(int64(n), 10)
		}
	case string:
		if _, err := strconv.Atoi(n); err == nil {
			return n
		}
	}
	return ""
}

// github handles GitHub events: ping, push, create and delete, pull_request.
func (h *Handler) github(req *request) *answer {
	event := req.r.Header.Get("X-GitHub-Event")
	if event == "" {
		event = "push"
	}
	p := req.payload
	switch event {
	case "ping":
		return &answer{status: http.StatusOK, body: detail{"Webhook configured correctly"}}
	case "push":
		if truthy(p["created"]) || truthy(p["deleted"]) {
			return h.syncAnswer(req)
		}
		ref, _ := p["ref"].(string)
		if ref == "" {
			return errRefRequired
		}
		return h.pushAnswer(req, []string{refName(ref)})
	case "create", "delete":
		return h.syncAnswer(req)
	case "pull_request":
		if !req.project.ExternalBuildsEnabled {
			return unhandled
		}
		n, sha := number(p["number"]), str(p, "pull_request", "head", "sha")
		switch str(p, "action") {
		case "opened", "reopened", "synchronize":
			if n == "" || sha == "" {
				return fail(http.StatusBadRequest, `Parameters "sha" and "number" are required`)
			}
			return h.pullRequestBuild(req, n, sha)
		case "closed":
			if n == "" || sha == "" {
				return fail(http.StatusBadRequest, `Parameters "sha" and "number" are required`)
			}
			return h.pullRequestClose(req, n, sha)
		}
	}
	return unhandled
}

// gitlab handles GitLab events: push, tag push, merge requests.
func (h *Handler) gitlab(req *request) *answer {
	p := req.payload
	kind, _ := p["object_kind"].(string)
	if kind == "" {
		kind = "push"
	}
	switch kind {
	case "push", "tag_push":
		const zeros = "0000000000000000000000000000000000000000"
		before, hasBefore := p["before"].(string)
		after, hasAfter := p["after"].(string)
		if before == zeros || after == zeros {
			return h.syncAnswer(req)
		}
		ref, _ := p["ref"].(string)
		if ref == "" {
			return errRefRequired
		}
		if !hasBefore || !hasAfter {
			return errInvalidRequest
		}
		return h.pushAnswer(req, []string{refName(ref)})
	case "merge_request":
		if !req.project.ExternalBuildsEnabled {
			return unhandled
		}
		n, sha := number(mustLookup(p, "object_attributes", "iid")), str(p, "object_attributes", "last_commit", "id")
		switch str(p, "object_attributes", "action") {
		case "open", "reopen", "update":
			if n == "" || sha == "" {
				return fail(http.StatusBadRequest, `Parameters "id" and "iid" are required`)
			}
			return h.pullRequestBuild(req, n, sha)
		case "close", "merge":
			if n == "" || sha == "" {
				return fail(http.StatusBadRequest, `Parameters "id" and "iid" are required`)
			}
			return h.pullRequestClose(req, n, sha)
		}
	}
	return unhandled
}

func mustLookup(m map[string]any, path ...string) any {
	v, _ := lookup(m, path...)
	return v
}

// bitbucket handles Bitbucket events: repo:push.
func (h *Handler) bitbucket(req *request) *answer {
	event := req.r.Header.Get("X-Event-Key")
	if event == "" {
		event = "repo:push"
	}
	if event != "repo:push" {
		return unhandled
	}
	changes, ok := mustLookup(req.payload, "push", "changes").([]any)
	if !ok {
		return errInvalidRequest
	}
	var names []string
	for _, c := range changes {
		change, _ := c.(map[string]any)
		if change == nil || change["old"] == nil || change["new"] == nil {
			continue
		}
		if name := str(change, "new", "name"); name != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return h.syncAnswer(req)
	}
	return h.pushAnswer(req, names)
}

// generic is the generic API webhook: a maintainer's
// API token, or the integration's secret in a `token` field.
func (h *Handler) generic(req *request, slug, id string) *answer {
	ctx := req.r.Context()
	var user *store.User
	if h.Authenticate != nil {
		u, err := h.Authenticate(ctx, req.r.Header.Get("Authorization"))
		if err != nil {
			if errs.Is(err, errs.Unauthenticated) {
				var e *errs.Error
				msg := errs.MsgInvalidToken
				if errors.As(err, &e) {
					msg = e.Text()
				}
				a := fail(http.StatusUnauthorized, msg)
				a.header = http.Header{"Www-Authenticate": {"Token"}}
				return a
			}
			return h.internal(err)
		}
		user = u
	}
	if err := req.decode(); err != nil {
		return errInvalidRequest
	}
	token, hasToken := req.payload["token"].(string)
	if user == nil && !hasToken {
		return errNoCredentials
	}
	p, a := h.findProject(req, slug)
	if a != nil {
		return a
	}
	accepted := false
	if user != nil {
		ms, err := h.Store.FindMaintainerships(ctx, []int64{p.ID})
		if err != nil {
			return h.internal(err)
		}
		for _, m := range ms {
			accepted = accepted || m.UserID == user.ID
		}
	}
	in, a := h.integration(ctx, p, store.APIWebhook, id)
	if a == errMultiple && !accepted {
		return a
	}
	if in != nil && in.Type != store.APIWebhook {
		in = nil
	}
	if !accepted && hasToken && in != nil {
		accepted = equalSecret(token, in.Secret)
	}
	if !accepted {
		return errProjectNotFound
	}
	req.integration = in
	if p.Skip {
		return errDisabled
	}
	var branches []string
	switch b := req.payload["branches"].(type) {
	case nil:
		branches = []string{p.EffectiveDefaultBranch()}
	case string:
		branches = []string{b}
	case []any:
		for _, e := range b {
			s, ok := e.(string)
			if !ok {
				return errInvalidRequest
			}
			branches = append(branches, s)
		}
	default:
		return errInvalidRequest
	}
	return h.pushAnswer(req, branches)
}
