// Package buildnotify sends build notifications: the webhook requests and
// emails that the store queues when a build is triggered, passes or fails
// (Read the Docs' WebHook and EmailHook). Workers claim queued deliveries
// with a lease, so that any number of docsd processes on one PostgreSQL
// share the queue; an attempt that gets no answer within the timeout (10 s
// by default) is cut off and tried again later, and a slow receiver never
// holds up a build or another delivery.
package buildnotify

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"docsd/internal/docsurl"
	"docsd/internal/errs"
	"docsd/internal/mail"
	"docsd/internal/repourl"
	"docsd/store"
)

// Defaults of Sender's settings.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultAttempts    = 5
	DefaultBackoff     = 30 * time.Second
	DefaultPoll        = time.Second
	DefaultConcurrency = 16
)

// responseExcerpt bounds the part of an answer's body that is kept.
const responseExcerpt = 2048

// Sender sends queued deliveries. Zero fields take the defaults above.
type Sender struct {
	Store  *store.Store
	Mailer *mail.Mailer // nil or disabled: emails fail with the setting to set
	URLs   docsurl.Config
	// AllowPrivateNetwork lets webhooks reach loopback and private
	// addresses (--allow-private-network).
	AllowPrivateNetwork bool
	Timeout             time.Duration // one attempt, connection to last byte
	Attempts            int           // attempts before giving up
	Backoff             time.Duration // wait before the second attempt; each further wait is 3 times longer
	Poll                time.Duration // how often the queue is read when idle
	Concurrency         int           // deliveries sent at once by this process
	Owner               string        // lease owner name (host and process)
	Logger              *slog.Logger
}

func (s *Sender) timeout() time.Duration { return orDefault(s.Timeout, DefaultTimeout) }
func (s *Sender) backoff() time.Duration { return orDefault(s.Backoff, DefaultBackoff) }
func (s *Sender) poll() time.Duration    { return orDefault(s.Poll, DefaultPoll) }

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (s *Sender) attempts() int {
	if s.Attempts <= 0 {
		return DefaultAttempts
	}
	return s.Attempts
}

func (s *Sender) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

// Run sends deliveries until ctx ends, Concurrency at a time; it returns
// when the ones in flight are done.
func (s *Sender) Run(ctx context.Context) {
	n := s.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	slots := make(chan struct{}, n)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case slots <- struct{}{}:
		}
		d, err := s.Store.ClaimDelivery(ctx, s.Owner, s.timeout()*3+time.Minute)
		if err != nil {
			<-slots
			if !errs.Is(err, errs.NotFound) && ctx.Err() == nil {
				s.logger().Error("claiming a notification delivery", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.poll()):
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			s.deliver(context.WithoutCancel(ctx), d)
		}()
	}
}

// deliver makes one attempt at d and records it.
func (s *Sender) deliver(ctx context.Context, d *store.Delivery) {
	log := s.logger().With("delivery", d.ID, "build", d.BuildID, "event", d.Event)
	o := s.attempt(ctx, d)
	if err := s.Store.RecordDeliveryAttempt(ctx, d.ID, s.Owner, o); err != nil {
		log.Error("recording a notification attempt", "err", err)
		return
	}
	if o.State != store.DeliveryDelivered {
		log.Warn("notification not delivered", "state", o.State, "attempt", d.Attempts, "err", o.Error)
	}
}

// attempt sends d once and says what follows.
func (s *Sender) attempt(ctx context.Context, d *store.Delivery) store.DeliveryOutcome {
	started := time.Now()
	o := store.DeliveryOutcome{Attempt: store.DeliveryAttempt{Started: started}}
	finish := func(retry bool, msg string) store.DeliveryOutcome {
		o.Attempt.DurationMS = time.Since(started).Milliseconds()
		o.Attempt.Error = msg
		switch {
		case msg == "":
			o.State = store.DeliveryDelivered
		case retry && d.Attempts < s.attempts():
			o.State = store.DeliveryQueued
			wait := s.backoff()
			for i := 1; i < d.Attempts; i++ {
				wait *= 3
			}
			o.RetryAt = time.Now().Add(wait)
			o.Error = msg
		default:
			o.State = store.DeliveryFailed
			o.Error = msg
		}
		return o
	}
	target, err := s.Store.FindDeliveryTarget(ctx, d)
	if err != nil {
		return finish(!errs.Is(err, errs.NotFound), err.Error())
	}
	vars, b, err := s.variables(ctx, d)
	if err != nil {
		return finish(!errs.Is(err, errs.NotFound), err.Error())
	}
	if target.EmailHook != nil {
		err := s.sendEmail(ctx, target.EmailHook.Email, vars, b)
		if err != nil {
			return finish(!mail.Permanent(err) && !errors.Is(err, mail.ErrDisabled), err.Error())
		}
		return finish(false, "")
	}
	w := target.Webhook
	body, headers := d.RequestBody, d.RequestHeaders
	if d.Attempts <= 1 || body == "" {
		body, headers = s.request(w, vars)
		if err := s.Store.SetDeliveryRequest(ctx, d.ID, headers, body); err != nil {
			return finish(true, err.Error())
		}
	}
	if !IsJSONObject(body) {
		return finish(false, MsgPayloadNotJSON)
	}
	status, excerpt, err := s.post(ctx, w.URL, headers, body)
	if status != 0 {
		o.Attempt.ResponseStatus = &status
	}
	o.Attempt.ResponseBody = excerpt
	switch {
	case err != nil:
		return finish(!errors.Is(err, errPrivate), err.Error())
	case status >= 200 && status < 300:
		return finish(false, "")
	case status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout:
		return finish(true, fmt.Sprintf("the receiver answered %d", status))
	default:
		return finish(false, fmt.Sprintf("the receiver answered %d", status))
	}
}

// variables reads what a delivery's payload and email say.
func (s *Sender) variables(ctx context.Context, d *store.Delivery) (Variables, *store.Build, error) {
	b, err := s.Store.FindBuildByID(ctx, d.BuildID)
	if err != nil {
		return Variables{}, nil, err
	}
	p, err := s.Store.FindProjectByID(ctx, b.ProjectID)
	if err != nil {
		return Variables{}, nil, err
	}
	commit := ""
	if b.Commit != nil {
		commit = *b.Commit
	}
	return Variables{
		Event: d.Event, BuildID: b.ID, BuildCommit: commit,
		BuildURL:       s.URLs.BuildPage(p.Slug, b.ID),
		BuildDocsURL:   s.URLs.Docs(docsurl.Target{Slug: p.Slug, Language: p.Language, Scheme: p.VersioningScheme}, b.VersionSlug, ""),
		BuildStartDate: b.Created.UTC().Format("2006-01-02T15:04:05"),
		ProjectSlug:    p.Slug, ProjectName: p.Name, ProjectURL: s.URLs.ProjectHome(p.Slug),
		VersionSlug: b.VersionSlug, VersionName: b.VersionName,
	}, b, nil
}

// request renders a webhook's body and headers (Read the Docs' headers;
// the signature is the hex HMAC-SHA256 of the body with the secret).
func (s *Sender) request(w *store.Webhook, v Variables) (body, headers string) {
	if strings.TrimSpace(w.Payload) == "" {
		// Read the Docs' payload of webhooks made without one.
		legacy, _ := json.Marshal(map[string]any{"name": v.ProjectName, "slug": v.ProjectSlug, "build": map[string]any{
			"id": v.BuildID, "commit": v.BuildCommit, "date": strings.Replace(v.BuildStartDate, "T", " ", 1)}})
		body = string(legacy)
	} else {
		body = Render(w.Payload, v)
	}
	h := map[string]string{
		"Content-Type": "application/json",
		"User-Agent":   "docsd (" + hostOf(s.URLs.PublicURL) + ")",
		"X-RTD-Event":  v.Event,
	}
	if w.Secret != "" {
		h["X-Hub-Signature"] = Sign(w.Secret, body)
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + ": " + h[k] + "\n")
	}
	return body, b.String()
}

// Sign is the X-Hub-Signature of body: the hex HMAC-SHA256 with secret.
func Sign(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return hex.EncodeToString(m.Sum(nil))
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// errPrivate refuses a connection to a private address.
var errPrivate = errors.New("the webhook URL's host resolves to a loopback, private, link-local or unspecified address; the server's operator can allow such addresses with --allow-private-network")

// post sends one request, cut off after the timeout; redirects are not
// followed (the 3xx is the answer).
func (s *Sender) post(ctx context.Context, target, headers, body string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	for _, line := range strings.Split(strings.TrimSpace(headers), "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			req.Header.Set(k, v)
		}
	}
	resp, err := s.client().Do(req)
	if err != nil {
		if errors.Is(err, errPrivate) {
			return 0, "", errPrivate
		}
		if ctx.Err() != nil {
			return 0, "", fmt.Errorf("no answer within %s", s.timeout())
		}
		return 0, "", err
	}
	defer resp.Body.Close()
	buf, err := io.ReadAll(io.LimitReader(resp.Body, responseExcerpt))
	if err != nil && ctx.Err() != nil {
		return resp.StatusCode, string(buf), fmt.Errorf("the answer did not end within %s", s.timeout())
	}
	return resp.StatusCode, string(bytes.ToValidUTF8(buf, []byte("\uFFFD"))), nil
}

// client is an HTTP client that refuses private addresses at connection
// time (after name resolution, so a name cannot resolve differently
// between a check and the request), unless they are allowed.
func (s *Sender) client() *http.Client {
	dialer := &net.Dialer{Timeout: s.timeout()}
	if !s.AllowPrivateNetwork {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if a, err := netip.ParseAddr(host); err != nil || repourl.Blocked(a) {
				return errPrivate
			}
			return nil
		}
	}
	return &http.Client{
		// The request's context bounds the whole attempt (post).
		Transport:     &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// sendEmail mails a build failure (Read the Docs' build_failed email).
func (s *Sender) sendEmail(ctx context.Context, to string, v Variables, b *store.Build) error {
	subject := fmt.Sprintf("Failed: %s (%s)", v.ProjectName, v.VersionName)
	if v.BuildCommit != "" {
		subject = fmt.Sprintf("Failed: %s (%.8s)", v.ProjectName, v.BuildCommit)
	}
	var t strings.Builder
	fmt.Fprintf(&t, "Build Failed for %s (%s)\n\n", v.ProjectName, v.VersionName)
	if b.Error != "" {
		fmt.Fprintf(&t, "Error: %s\n\n", b.Error)
	}
	fmt.Fprintf(&t, "You can find out more about this failure here:\n\n%s\n\n", v.BuildURL)
	fmt.Fprintf(&t, "You can unsubscribe from these emails in the project's notification settings:\n\n%s\n",
		s.URLs.ProjectHome(v.ProjectSlug)+"notifications/")
	return s.Mailer.Send(ctx, mail.Message{To: to, Subject: subject, Text: t.String()})
}
