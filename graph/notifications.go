package graph

import (
	"context"
	"slices"

	"docsd/internal/errs"
	"docsd/internal/rtdconfig"
	"docsd/store"
)

// Build notifications are derived from the build's stored failure: a build
// that finished unsuccessfully has one, whose id is the build's, others
// none. Nothing about them is stored, so every one is unread.

// GenericErrorID is the message id of a failed build that carries no id of
// its own (a failure recorded before error ids existed, or one no step
// classified): Read the Docs' message for another internal error.
const GenericErrorID = "build:app:generic-with-build-id"

// notificationHeaders are Read the Docs' header texts by message id; those
// of configuration failures are rtdconfig's (rtdconfig.Header).
var notificationHeaders = map[string]string{
	"build:app:project-builds-disabled":               "Builds are temporary disabled for this project.",
	"project:repository:public-clone-error":           "Error while cloning the repository",
	"project:repository:private-clone-error":          "Error while cloning the repository",
	"project:repository:checkout-failed":              "Error while checking out the repository",
	"project:repository:unsupported-vcs":              "Repository type not supported",
	"project:repository:generic-error":                "Error while cloning the repository",
	"project:repository:duplicated-reserved-versions": "Duplicated reserved versions",
	"build:user:tex-file-not-found":                   "No TeX files were found",
	"build:user:generic":                              "Unknown problem",
	"build:user:time-out":                             "Build terminated due to time out.",
	store.InactivityErrorID:                           "Build terminated due to inactivity",
	GenericErrorID:                                    "Unknown problem",
	"build:user:cancelled":                            "Build cancelled manually.",
	"build:user:artifacts-zip-upload-failed":          "There was a problem while uploading your artifacts",
	"build:user:artifacts-zip-invalid":                "Artifacts zip file is invalid",
	"build:user:output:html-no-index-file":            "Index file is not present in HTML output directory",
	"build:user:output:is-no-a-directory":             "Build output directory is not a directory",
	"build:user:output:has-0-files":                   "Build output directory doesn't contain any file",
	"build:user:output:has-multiple-files":            "Build output directory contains multiple files",

	// What builds can't install, or can't reach safely.
	"build:app:package-index-unreachable":     "The package index is not reachable",
	"build:app:apt-packages-unavailable":      "System packages are not available",
	"build:app:network-isolation-unavailable": "The build's network can't be isolated",
}

// NotificationHeader returns the header of a message id; an id docsd does
// not know has the generic header.
func NotificationHeader(id string) string { return failureHeader(id, "") }

// failureHeader is the header of a failure with message id id and error
// text msg: a configuration failure's header may name a key its message
// carries.
func failureHeader(id, msg string) string {
	if h, ok := rtdconfig.Header(id, msg); ok {
		return h
	}
	if h, ok := notificationHeaders[id]; ok {
		return h
	}
	return "Unknown problem"
}

// failed reports whether the build finished unsuccessfully.
func failed(b *store.Build) bool { return b.State == store.Finished && !b.Success }

// errorID is the message id of a failed build: its stored one, else
// GenericErrorID.
func errorID(b *store.Build) string {
	if b.ErrorID != "" {
		return b.ErrorID
	}
	return GenericErrorID
}

// buildNotification is the one notification of a failed build, or nil.
func buildNotification(b *store.Build) *Notification {
	if !failed(b) {
		return nil
	}
	id := errorID(b)
	return &Notification{
		ID: b.ID, AttachedToContentType: "build", AttachedToID: b.ID, State: "unread",
		Message: &NotificationMessage{ID: id, Header: failureHeader(id, b.Error), Body: b.Error, Type: "error", IconClasses: "fas fa-circle-xmark"},
	}
}

// notificationList pages the notifications that pass filter.
func (r *Resolver) notificationList(all []*Notification, filter *NotificationFilterInput, limit, offset *int64) *NotificationList {
	var kept []*Notification
	for _, n := range all {
		if n != nil && (filter == nil || filter.StateIn == nil || slices.Contains(filter.StateIn, n.State)) {
			kept = append(kept, n)
		}
	}
	l, o := r.window(limit, offset)
	page := []*Notification{}
	if o < len(kept) {
		page = kept[o:min(len(kept), o+l)]
	}
	return &NotificationList{TotalCount: int64(len(kept)), Nodes: page}
}

func (r *Resolver) buildErrorID(b *store.Build) *string {
	if !failed(b) {
		return nil
	}
	return ptr(errorID(b))
}

func (r *Resolver) buildNotifications(b *store.Build, filter *NotificationFilterInput, limit, offset *int64) *NotificationList {
	return r.notificationList([]*Notification{buildNotification(b)}, filter, limit, offset)
}

func (r *Resolver) buildNotificationByID(b *store.Build, id int64) *Notification {
	if n := buildNotification(b); n != nil && n.ID == id {
		return n
	}
	return nil
}

// projectNotifications is the always-empty list of a project's
// notifications: docsd attaches none (maintainers only, by
// @maintainersOnly).
func (r *Resolver) projectNotifications(ctx context.Context, p *store.Project, filter *NotificationFilterInput, limit, offset *int64) (*NotificationList, error) {
	return r.notificationList(nil, filter, limit, offset), nil
}

// syncVersions queues a stand-alone version sync, unless one is queued
// already; none when the project's builds are disabled or it has no
// `latest`.
func (r *Resolver) syncVersions(ctx context.Context, slug string) (*SyncVersionsPayload, error) {
	p, err := r.maintainedProject(ctx, slug)
	if err != nil {
		return nil, err
	}
	if p.Skip {
		return &SyncVersionsPayload{Project: r.projectView(ctx, p)}, nil
	}
	if _, err := r.Store.FindVersionBySlug(ctx, p.ID, store.Latest); err != nil {
		if errs.Is(err, errs.NotFound) {
			return &SyncVersionsPayload{Project: r.projectView(ctx, p)}, nil
		}
		return nil, err
	}
	added, err := r.Store.QueueSyncTask(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if added {
		r.buildQueued()
	}
	return &SyncVersionsPayload{Project: r.projectView(ctx, p), Triggered: true}, nil
}
