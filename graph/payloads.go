package graph

import (
	"context"
	"strconv"
	"strings"

	"docsd/graph/gid"
	"docsd/internal/errs"
)

// Mutations answer with a payload: the changed object and `errors`, the
// validation and conflict failures of the input (errs.UserErrors).
// Everything else a mutation can fail with (not found, forbidden,
// unauthenticated, throttled, internal) stays a top-level error, as
// GitHub's API does.

// userErrors splits a mutation's error for its payload: an Invalid or
// Conflict error becomes the payload's errors; any other stays top-level
// (the second result). The list is never nil, so a success shows `[]`.
func userErrors(err error) ([]*errs.UserError, error) {
	list := errs.UserErrors(err)
	if err != nil && list == nil {
		return nil, err
	}
	out := make([]*errs.UserError, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out, nil
}

// payloadOf splits a mutation's outcome for its payload: the object
// (nil when the input was refused), the UserErrors, or a top-level error.
func payloadOf[T any](obj *T, err error) (*T, []*errs.UserError, error) {
	ue, err := userErrors(err)
	if err != nil {
		return nil, nil, err
	}
	if len(ue) > 0 {
		obj = nil
	}
	return obj, ue, nil
}

// deletedPayload is a delete's outcome: the deleted object's id, or the
// UserErrors of its failure (then the id is null).
func deletedPayload(id string, err error) (*string, []*errs.UserError, error) {
	ue, err := userErrors(err)
	if err != nil || len(ue) > 0 {
		return nil, ue, err
	}
	return &id, ue, nil
}

// inputID reads the id of an existing object from a mutation's input: the
// object's global id of Node type typ, or its database id (an integer, or
// its decimal string) for callers that hold only that (REST, the admin
// commands). projectID is the project a global id names for objects looked
// up within a project (redirects, variables), 0 when it names none; the
// caller checks it. An id that names no object of type typ is NotFound,
// as node(id:) answers it. A global id is never all digits (it encodes the
// type name first), so the two forms cannot be confused.
func inputID(typ, id string) (projectID, objectID int64, err error) {
	const op = "graph.inputID"
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		if n <= 0 {
			return 0, 0, errNotFound(op)
		}
		return 0, n, nil
	}
	t, keys, ok := gid.Decode(id)
	switch {
	case !ok || t != typ:
		return 0, 0, errNotFound(op)
	case len(keys) == 1:
		return 0, keys[0], nil
	case len(keys) == 2:
		return keys[0], keys[1], nil
	}
	return 0, 0, errNotFound(op)
}

// projectObjectID is inputID for an object of project projectID (a
// redirect, a variable): a global id that names another project is
// NotFound, as the object is not found in this one.
func projectObjectID(typ, id string, projectID int64) (int64, error) {
	p, objectID, err := inputID(typ, id)
	if err != nil {
		return 0, err
	}
	if p != 0 && p != projectID {
		return 0, errNotFound("graph.projectObjectID")
	}
	return objectID, nil
}

// buildID reads a build's id from an input (see inputID).
func buildID(id string) (int64, error) {
	_, n, err := inputID(nodeBuild, id)
	return n, err
}

// versionID reads a version's global or database id.
func versionID(id string) (int64, error) {
	_, n, err := inputID(nodeVersion, id)
	return n, err
}

// triggerPayload is the payload of triggerBuild and retryBuild: their
// UserErrors (an uploaded version) in a payload without objects.
func triggerPayload(out *TriggerBuildPayload, err error) (*TriggerBuildPayload, error) {
	ue, err := userErrors(err)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = &TriggerBuildPayload{}
	}
	out.Errors = ue
	return out, nil
}

// uploadInputErr renames initiate's field keys, which follow REST's body
// (`version.type`), to the mutation's input fields (`versionType`).
func uploadInputErr(err error) error {
	f := errs.FieldsOf(err)
	if len(f) == 0 {
		return err
	}
	renamed := errs.Fields{}
	for k, msgs := range f {
		renamed[strings.ReplaceAll(k, ".", "_")] = msgs
	}
	return &errs.Error{Kind: errs.KindOf(err), Op: "graph.initiateUpload", Fields: renamed, Err: err}
}

// deleteProjectObject deletes the object of Node type typ ("" for
// integrations, which are not Nodes) with input id from the project with
// slug projectSlug (maintainers), and returns the id it had.
func (r *Resolver) deleteProjectObject(ctx context.Context, projectSlug, typ, id string, del func(ctx context.Context, projectID, id int64) error) (string, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return "", err
	}
	n, err := projectObjectID(typ, id, p.ID)
	if err != nil {
		return "", err
	}
	if err := del(ctx, p.ID, n); err != nil {
		return "", err
	}
	if typ == "" {
		return strconv.FormatInt(n, 10), nil
	}
	return gid.Encode(typ, p.ID, n), nil
}
