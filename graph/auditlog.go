package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/store"
)

// The audit log's reads (docs/user-guide/audit-log.md). Who reads which
// entries is access.AuditVisibility's decision.

// nodeAuditLogEntry is the Node type of an audit entry.
const nodeAuditLogEntry = "AuditLogEntry"

// Messages of the audit log's filters.
const MsgEnterValidDate = "Enter a valid date."

// auditVisibility is the store filter of the entries the viewer reads
// (owners read their organizations' entries);
// anonymous viewers are Unauthenticated.
func (r *Resolver) auditVisibility(ctx context.Context) (store.AuditVisibility, error) {
	v := access.ViewerFrom(ctx)
	if v.User == nil && !v.System {
		return store.AuditVisibility{}, errAnonymous("graph.auditLogs")
	}
	var owned []int64
	if v.User != nil {
		orgs, _, err := r.Store.FindOrganizations(ctx, store.OrganizationFilter{OwnerID: &v.User.ID})
		if err != nil {
			return store.AuditVisibility{}, err
		}
		for _, o := range orgs {
			owned = append(owned, o.ID)
		}
	}
	return access.AuditVisibility(v, owned), nil
}

// AuditFilter reads the filters of the audit log (the API's and the
// dashboard's): an unknown action or a date not in YYYY-MM-DD form is
// Invalid, with the filter's REST name.
func AuditFilter(in *AuditLogFilterInput) (store.AuditFilter, error) {
	const op = "graph.AuditFilter"
	var f store.AuditFilter
	if in == nil {
		return f, nil
	}
	fields := errs.Fields{}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.TrimSpace(*p)
	}
	f.Action, f.IP, f.Project, f.Organization, f.User = str(in.Action), str(in.IP), str(in.Project), str(in.Organization), str(in.User)
	if f.Action != "" && !slices.Contains(store.AuditActions, f.Action) {
		fields.Add("action", fmt.Sprintf("Select a valid choice. %s is not one of the available choices.", f.Action))
	}
	day := func(name string, p *string, next int) *time.Time {
		s := str(p)
		if s == "" {
			return nil
		}
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			fields.Add(name, MsgEnterValidDate)
			return nil
		}
		d = d.AddDate(0, 0, next)
		return &d
	}
	f.After = day("date_after", in.DateAfter, 0)
	f.Before = day("date_before", in.DateBefore, 1) // inclusive: up to the next day
	return f, fields.Err(op)
}

// auditLogs lists the entries the viewer reads that the filter lets
// through.
func (r *Resolver) auditLogs(ctx context.Context, filter *AuditLogFilterInput, limit, offset *int64) (*AuditLogList, error) {
	vis, err := r.auditVisibility(ctx)
	if err != nil {
		return nil, err
	}
	f, err := AuditFilter(filter)
	if err != nil {
		return nil, err
	}
	f.Visible = vis
	l, o := r.window(limit, offset)
	es, total, err := r.Store.FindAuditEntries(ctx, f, store.Page{Limit: l, Offset: o})
	if err != nil {
		return nil, err
	}
	return &AuditLogList{TotalCount: int64(total), Nodes: es}, nil
}

// auditLog is entry id when the viewer reads it.
func (r *Resolver) auditLog(ctx context.Context, id int64) (*store.AuditEntry, error) {
	vis, err := r.auditVisibility(ctx)
	if err != nil {
		return nil, err
	}
	return r.Store.FindAuditEntry(ctx, vis, id)
}

func auditUser(e *store.AuditEntry) *AuditUser {
	if e.LogUserUsername == nil {
		return nil
	}
	return &AuditUser{DatabaseID: e.LogUserID, Username: *e.LogUserUsername}
}

func auditRef(id *int64, slug *string) *AuditRef {
	if id == nil || slug == nil {
		return nil
	}
	return &AuditRef{DatabaseID: *id, Slug: *slug}
}

func auditData(e *store.AuditEntry) json.RawMessage {
	if e.Data == nil {
		return nil
	}
	return json.RawMessage(*e.Data)
}

func auditGID(e *store.AuditEntry) string { return gid.Encode(nodeAuditLogEntry, e.ID) }

// AuditActions are the action codes of the audit log, the choices of its
// `action` filter.
func AuditActions() []string { return slices.Clone(store.AuditActions) }
