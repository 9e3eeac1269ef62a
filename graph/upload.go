package graph

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"docsd/internal/access"
	"docsd/internal/choices"
	"docsd/internal/errs"
	"docsd/internal/slug"
	"docsd/store"
)

// The upload API's graph side: initiate gets or creates the version and
// creates a build awaiting its archive; complete queues the archive's
// processing or fails the build. Where the archive goes is the
// UploadTarget's business (local storage or S3).

// UploadTarget is where clients POST archives.
type UploadTarget interface {
	// Target returns the URL and form fields a client POSTs the archive of
	// key with (the upload token among them for local storage).
	Target(ctx context.Context, key, token string, ttl time.Duration) (url string, fields map[string]string, err error)
	// Exists reports whether an archive is stored under key.
	Exists(ctx context.Context, key string) (bool, error)
	// Remove deletes the archive under key, if any.
	Remove(ctx context.Context, key string) error
}

// UploadSettings configure the upload API.
type UploadSettings struct {
	Disabled   bool          // upload_api false: initiate is refused
	TTL        time.Duration // upload_url_ttl
	MaxPending int           // upload_max_pending
	Target     UploadTarget  // nil: the upload API is off
}

// UploadFailedMessage is the error of a build whose client reported a
// failed storage POST.
const UploadFailedMessage = "Artifacts for this build could not be uploaded. Check your CI job for more information, or try again later."

// MsgUploadedVersionBuild refuses a build of a version published by the
// upload API: its docs come from uploads, not from the repository.
const MsgUploadedVersionBuild = "Cannot trigger a build for an uploaded version."

// HashUploadToken is how an upload token is stored: SHA-256, hex.
func HashUploadToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newUploadToken returns 32 random bytes, base64url without padding.
func newUploadToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

var uploadVersionTypes = choices.Table{{Code: store.Branch}, {Code: store.Tag}, {Code: store.External}}

// ValidateUploadInput applies the field rules of initiate (blank, length,
// choices); REST runs it beside its own type checks to report both at once.
func ValidateUploadInput(in InitiateUploadInput) error {
	f := errs.Fields{}
	text := func(name, v string) {
		switch {
		case strings.TrimSpace(v) == "":
			f.Add(name, errs.MsgNotBlank)
		case utf8.RuneCountInString(v) > 255:
			f.Add(name, fmt.Sprintf(errs.MsgTooLongFormat, 255))
		}
	}
	text("version.name", in.VersionName)
	if !uploadVersionTypes.Has(in.VersionType) {
		f.Add("version.type", fmt.Sprintf(errs.MsgBadChoiceFormat, in.VersionType))
	}
	text("version.commit", in.VersionCommit)
	if p := in.VersionPrivacyLevel; p != nil && !choices.PrivacyLevels.Has(*p) {
		f.Add("version.privacy_level", fmt.Sprintf(errs.MsgBadChoiceFormat, *p))
	}
	return f.Err("graph.initiateUpload")
}

// initiateUpload runs initiate's checks in Read the Docs' order: an
// authenticated caller, valid input, the project, a maintainer of it, the
// upload API on, the project's builds enabled, the pending uploads under
// their limit; then it gets the version, creates its build and the
// upload's target.
func (r *Resolver) initiateUpload(ctx context.Context, in InitiateUploadInput) (*InitiateUploadPayload, error) {
	const op = "graph.initiateUpload"
	if access.ViewerFrom(ctx).User == nil {
		return nil, errAnonymous(op)
	}
	if err := ValidateUploadInput(in); err != nil {
		return nil, err
	}
	p, err := r.Store.FindProjectBySlug(ctx, in.Project)
	if notFoundIs(err) {
		return &InitiateUploadPayload{Outcome: "project-not-found"}, nil
	} else if err != nil {
		return nil, err
	}
	up := r.Settings.Uploads
	if ok, err := r.isMaintainer(ctx, p); err != nil || !ok {
		return &InitiateUploadPayload{Outcome: "not-admin"}, err
	}
	switch {
	case up.Disabled || up.Target == nil:
		return &InitiateUploadPayload{Outcome: "disabled"}, nil
	case p.Skip:
		return &InitiateUploadPayload{Outcome: "inactive"}, nil
	}
	n, oldest, err := r.Store.PendingUploads(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if n >= max(up.MaxPending, 1) {
		wait := int64(math.Ceil(oldest.Sub(r.Store.Now()).Seconds()))
		return &InitiateUploadPayload{Outcome: "too-many-pending", RetryAfter: ptr(max(wait, 1))}, nil
	}
	token, err := newUploadToken()
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	var v *store.Version
	b, u, err := r.Store.CreateUploadBuild(ctx, func(tx *store.Tx) (*store.Version, error) {
		v, err = uploadVersion(ctx, tx, p, in)
		return v, err
	}, in.VersionCommit, HashUploadToken(token), up.TTL)
	if err != nil {
		return nil, err
	}
	url, fields, err := up.Target.Target(ctx, u.StorageKey, token, up.TTL)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(fields)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	return &InitiateUploadPayload{Outcome: "created", Build: r.buildView(ctx, b), Version: r.versionView(ctx, v), UploadURL: &UploadURL{URL: url, Fields: raw}}, nil
}

// uploadVersion gets or creates initiate's version: the one with that name
// and type is activated (and takes the new identifier, unless it is the
// machine latest or stable); else a new active one with a unique slug.
func uploadVersion(ctx context.Context, tx *store.Tx, p *store.Project, in InitiateUploadInput) (*store.Version, error) {
	all, err := tx.FindVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}})
	if err != nil {
		return nil, err
	}
	identifier := in.VersionName
	if in.VersionType == store.External {
		identifier = in.VersionCommit
	}
	taken := map[string]bool{}
	for _, v := range all {
		taken[v.Slug] = true
		if v.VerboseName != in.VersionName || v.Type != in.VersionType {
			continue
		}
		upd := store.VersionUpdate{Active: ptr(true), PrivacyLevel: in.VersionPrivacyLevel}
		if !(v.Machine && (v.Slug == store.Latest || v.Slug == store.Stable)) {
			upd.Identifier = &identifier
		}
		return tx.UpdateVersion(ctx, v.ID, upd)
	}
	privacy := p.VersionPrivacyLevel
	if in.VersionPrivacyLevel != nil {
		privacy = *in.VersionPrivacyLevel
	}
	return tx.CreateVersion(ctx, &store.Version{
		ProjectID: p.ID, Slug: slug.UniqueVersion(in.VersionName, func(s string) bool { return taken[s] }),
		VerboseName: in.VersionName, Identifier: identifier, Type: in.VersionType, Active: true, PrivacyLevel: privacy,
	})
}

// completeUpload runs complete's checks in Read the Docs' order: an
// authenticated caller, the status, the build and its upload, a maintainer
// of its project, the upload pending, then (for success) the archive
// stored.
func (r *Resolver) completeUpload(ctx context.Context, build, status string) (*CompleteUploadPayload, error) {
	const op = "graph.completeUpload"
	if access.ViewerFrom(ctx).User == nil {
		return nil, errAnonymous(op)
	}
	if f := (errs.Fields{}); !checkChoice(f, "status", status, choices.UploadStatuses) {
		return nil, f.Err(op)
	}
	id, err := buildID(build)
	if notFoundIs(err) {
		// Refusals are outcomes here: an id that names no build is one.
		return &CompleteUploadPayload{Outcome: "build-not-found"}, nil
	}
	u, err := r.Store.FindUploadByBuildID(ctx, id)
	if notFoundIs(err) {
		return &CompleteUploadPayload{Outcome: "build-not-found"}, nil
	} else if err != nil {
		return nil, err
	}
	p, err := r.Store.FindProjectByID(ctx, u.ProjectID)
	if err != nil {
		return nil, err
	}
	if ok, err := r.isMaintainer(ctx, p); err != nil || !ok {
		return &CompleteUploadPayload{Outcome: "not-admin"}, err
	}
	if u.Status != store.UploadPending || !r.Store.Now().Before(u.Expires) {
		return &CompleteUploadPayload{Outcome: "not-pending"}, nil
	}
	target := r.Settings.Uploads.Target
	if status == "failed" {
		return r.failUpload(ctx, u, target)
	}
	if ok, err := target.Exists(ctx, u.StorageKey); err != nil || !ok {
		return &CompleteUploadPayload{Outcome: "not-stored"}, err
	}
	// The answer is the build as queued, read in the write's transaction: a
	// worker may claim it as soon as it is queued.
	b, err := r.Store.QueueUpload(ctx, u.BuildID)
	if errs.Is(err, errs.Conflict) {
		return &CompleteUploadPayload{Outcome: "not-pending"}, nil
	} else if err != nil {
		return nil, err
	}
	r.buildQueued()
	return &CompleteUploadPayload{Outcome: "queued", Build: r.buildView(ctx, b)}, nil
}

// failUpload fails the build of an upload whose client reported failure
// and discards its archive.
func (r *Resolver) failUpload(ctx context.Context, u *store.Upload, target UploadTarget) (*CompleteUploadPayload, error) {
	b, err := r.Store.FinishUpload(ctx, u.BuildID, store.BuildResult{
		Error: UploadFailedMessage, ErrorID: "build:user:artifacts-zip-upload-failed", ExitCode: ptr(1)}, true)
	if errs.Is(err, errs.Conflict) {
		return &CompleteUploadPayload{Outcome: "not-pending"}, nil
	} else if err != nil {
		return nil, err
	}
	if err := target.Remove(ctx, u.StorageKey); err != nil {
		return nil, err
	}
	return &CompleteUploadPayload{Outcome: "failed", Build: r.buildView(ctx, b)}, nil
}

// setVersionUploaded sets a version's uploaded flag (maintainers).
func (r *Resolver) setVersionUploaded(ctx context.Context, projectSlug, versionSlug string, uploaded bool) (*store.Version, error) {
	v, err := r.maintainedVersion(ctx, projectSlug, versionSlug)
	if err != nil {
		return nil, err
	}
	return r.Store.UpdateVersion(ctx, v.ID, store.VersionUpdate{Uploaded: &uploaded})
}

// maintainedVersion is the internal version of a project the caller
// maintains.
func (r *Resolver) maintainedVersion(ctx context.Context, projectSlug, versionSlug string) (*store.Version, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return nil, err
	}
	return r.internalVersion(ctx, p, versionSlug)
}
