package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"docsd/internal/errs"
)

// RelationshipFilter selects subproject relationships. Nil fields do not filter.
type RelationshipFilter struct {
	ParentIDs    []int64
	ChildIDs     []int64
	Alias        *string
	ChildVisible *Visibility // only relationships whose child this caller can see
	Limit        int
	Offset       int
	// Keyset, when set, pages by cursor instead of Offset.
	Keyset *Keyset
}

// relationshipOrder is the order of relationship lists: creation order.
var relationshipOrder = []orderKey{{col: "id"}}

// FindRelationships returns matching relationships in creation order and the
// total count of matches.
func (s *Store) FindRelationships(ctx context.Context, f RelationshipFilter) ([]*Relationship, int, error) {
	const op = "store.FindRelationships"
	w := &where{}
	if f.ParentIDs != nil {
		if len(f.ParentIDs) == 0 {
			w.add("1=0")
		} else {
			w.add("parent_id IN (?)", f.ParentIDs)
		}
	}
	if f.ChildIDs != nil {
		if len(f.ChildIDs) == 0 {
			w.add("1=0")
		} else {
			w.add("child_id IN (?)", f.ChildIDs)
		}
	}
	if f.Alias != nil {
		w.addText("alias", *f.Alias)
	}
	if f.ChildVisible != nil {
		c, a := f.ChildVisible.projectVisible("p")
		w.add("child_id IN (SELECT p.id FROM projects p WHERE "+c+")", a...)
	}
	var total int
	if err := s.read().getIn(ctx, &total, `SELECT COUNT(*) FROM project_relationships r`+w.String(), w.args...); err != nil {
		return nil, 0, classify(op, err)
	}
	rels := []*Relationship{}
	if total == 0 || f.Offset >= total {
		return rels, total, nil
	}
	if err := s.addKeyset(ctx, w, ` FROM project_relationships r`, "project_relationships", "r", relationshipOrder, f.Keyset); err != nil {
		return nil, 0, err
	}
	err := s.read().selIn(ctx, &rels, s.page(`SELECT r.id, r.parent_id, r.child_id, r.alias FROM project_relationships r`+w.String()+
		` ORDER BY `+s.orderBy("r", relationshipOrder, backward(f.Keyset)), f.Limit, f.Offset), w.args...)
	inOrder(f.Keyset, rels)
	return rels, total, classify(op, err)
}

// CreateRelationship nests child under parent with alias. The caller has
// checked the nesting rules; a second parent for the child or a taken alias
// is a Conflict.
func (s *Store) CreateRelationship(ctx context.Context, parentID, childID int64, alias string) (*Relationship, error) {
	r := &Relationship{ParentID: parentID, ChildID: childID, Alias: alias}
	err := s.InTx(ctx, "store.CreateRelationship", func(tx *Tx) error {
		id, err := tx.insert(ctx, `INSERT INTO project_relationships (parent_id, child_id, alias) VALUES (?, ?, ?)`, parentID, childID, alias)
		r.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// DeleteRelationship removes a relationship; the child project is kept.
func (s *Store) DeleteRelationship(ctx context.Context, id int64) error {
	const op = "store.DeleteRelationship"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM project_relationships WHERE id = ?`, id)
		return mustAffect(op, res, err)
	})
}

const redirectColumns = `id, project_id, type, from_url, to_url, http_status, position, force, enabled, description, created, modified`

// redirectOrder is the order in which a project's redirects are tried.
var redirectOrder = []orderKey{{col: "position"}, {col: "id"}}

// FindRedirects returns a project's redirects in the order they are tried
// (position ascending), the window pg of them, and their total count.
func (s *Store) FindRedirects(ctx context.Context, projectID int64, pg Page) ([]*Redirect, int, error) {
	const op = "store.FindRedirects"
	var total int
	if err := s.read().get(ctx, &total, `SELECT COUNT(*) FROM redirects WHERE project_id = ?`, projectID); err != nil {
		return nil, 0, classify(op, err)
	}
	rs := []*Redirect{}
	if total == 0 || pg.Offset >= total {
		return rs, total, nil
	}
	w := &where{}
	w.add("r.project_id = ?", projectID)
	if err := s.addKeyset(ctx, w, ` FROM redirects r`, "redirects", "r", redirectOrder, pg.Keyset); err != nil {
		return nil, 0, err
	}
	err := s.read().sel(ctx, &rs, s.page(`SELECT `+redirectColumns+` FROM redirects r`+w.String()+
		` ORDER BY `+s.orderBy("r", redirectOrder, backward(pg.Keyset)), pg.Limit, pg.Offset), w.args...)
	inOrder(pg.Keyset, rs)
	return rs, total, classify(op, err)
}

// FindServedRedirects returns the project's enabled redirects in the order
// the docs host tries them (position ascending); forcedOnly keeps only
// those with force set.
func (s *Store) FindServedRedirects(ctx context.Context, projectID int64, forcedOnly bool) ([]*Redirect, error) {
	rs := []*Redirect{}
	q := `SELECT ` + redirectColumns + ` FROM redirects WHERE project_id = ? AND enabled`
	if forcedOnly {
		q += ` AND force`
	}
	err := s.read().sel(ctx, &rs, q+` ORDER BY position, id`, projectID)
	return rs, classify("store.FindServedRedirects", err)
}

// FindRedirect returns the project's redirect with that id.
func (s *Store) FindRedirect(ctx context.Context, projectID, id int64) (*Redirect, error) {
	var r Redirect
	err := s.read().get(ctx, &r, `SELECT `+redirectColumns+` FROM redirects WHERE project_id = ? AND id = ?`, projectID, id)
	return &r, classify("store.FindRedirect", err)
}

// lockRedirects serialises the writes to a project's redirects, whose
// positions depend on each other (SQLite's single writer already does).
func (tx *Tx) lockRedirects(ctx context.Context, projectID int64) error {
	if tx.s.dialect != Postgres {
		return nil
	}
	_, err := tx.exec(ctx, `SELECT id FROM projects WHERE id = ? FOR UPDATE`, projectID)
	return err
}

// CreateRedirect stores a validated redirect at position min(r.Position, N)
// among the project's N redirects, moving those at or after it down by one
// (positions stay 0…N−1, each once). HTTPStatus 0 stores 302; Enabled and
// Force are stored as given (the zero value is a disabled redirect). A
// second redirect of a type allowed once per project (clean_url_to_html,
// html_to_clean_url) is a Conflict.
func (s *Store) CreateRedirect(ctx context.Context, r Redirect) (*Redirect, error) {
	err := s.InTx(ctx, "store.CreateRedirect", func(tx *Tx) error {
		if err := tx.lockRedirects(ctx, r.ProjectID); err != nil {
			return err
		}
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM redirects WHERE project_id = ?`, r.ProjectID); err != nil {
			return err
		}
		r.Position = max(0, min(r.Position, n))
		if _, err := tx.exec(ctx, `UPDATE redirects SET position = position + 1 WHERE project_id = ? AND position >= ?`, r.ProjectID, r.Position); err != nil {
			return err
		}
		if r.HTTPStatus == 0 {
			r.HTTPStatus = 302
		}
		r.Created, r.Modified = tx.Now, tx.Now
		id, err := tx.insert(ctx, `INSERT INTO redirects (project_id, type, from_url, to_url, http_status, position, force, enabled, description, created, modified)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ProjectID, r.Type, r.FromURL, r.ToURL, r.HTTPStatus, r.Position, r.Force, r.Enabled, r.Description, r.Created, r.Modified)
		r.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdateRedirect stores every field of r and advances its modified. With
// moveTo set the redirect moves to position min(*moveTo, N−1) and the
// redirects between its old and new positions shift by one towards the gap;
// otherwise r.Position is ignored and the stored position kept. Moved
// neighbours keep their modified.
func (s *Store) UpdateRedirect(ctx context.Context, r Redirect, moveTo *int) (*Redirect, error) {
	const op = "store.UpdateRedirect"
	var out Redirect
	err := s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockRedirects(ctx, r.ProjectID); err != nil {
			return err
		}
		var cur Redirect
		if err := tx.get(ctx, &cur, `SELECT `+redirectColumns+` FROM redirects WHERE id = ? AND project_id = ?`, r.ID, r.ProjectID); err != nil {
			return err
		}
		pos := cur.Position
		if moveTo != nil {
			var n int
			if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM redirects WHERE project_id = ?`, r.ProjectID); err != nil {
				return err
			}
			pos = max(0, min(*moveTo, n-1))
			var err error
			switch {
			case pos > cur.Position:
				_, err = tx.exec(ctx, `UPDATE redirects SET position = position - 1 WHERE project_id = ? AND position > ? AND position <= ?`, r.ProjectID, cur.Position, pos)
			case pos < cur.Position:
				_, err = tx.exec(ctx, `UPDATE redirects SET position = position + 1 WHERE project_id = ? AND position >= ? AND position < ?`, r.ProjectID, pos, cur.Position)
			}
			if err != nil {
				return err
			}
		}
		_, err := tx.exec(ctx, `UPDATE redirects SET type = ?, from_url = ?, to_url = ?, http_status = ?, position = ?, force = ?, enabled = ?, description = ?, modified = ?
			WHERE id = ?`, r.Type, r.FromURL, r.ToURL, r.HTTPStatus, pos, r.Force, r.Enabled, r.Description, tx.Now, r.ID)
		if err != nil {
			return err
		}
		return tx.get(ctx, &out, `SELECT `+redirectColumns+` FROM redirects WHERE id = ?`, r.ID)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// SetRedirectStatus sets the HTTP status a redirect answers with (301/302).
func (s *Store) SetRedirectStatus(ctx context.Context, projectID, id int64, status int) error {
	const op = "store.SetRedirectStatus"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE redirects SET http_status = ?, modified = ? WHERE id = ? AND project_id = ?`, status, tx.Now, id, projectID)
		return mustAffect(op, res, err)
	})
}

// DeleteRedirect removes the project's redirect with that id; the
// redirects after it move up by one.
func (s *Store) DeleteRedirect(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteRedirect"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockRedirects(ctx, projectID); err != nil {
			return err
		}
		var pos int
		if err := tx.get(ctx, &pos, `SELECT position FROM redirects WHERE id = ? AND project_id = ?`, id, projectID); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `DELETE FROM redirects WHERE id = ?`, id); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `UPDATE redirects SET position = position - 1 WHERE project_id = ? AND position > ?`, projectID, pos)
		return err
	})
}

const envColumns = `id, project_id, name, value, created, modified, public`

// envOrder is the order of a project's variables.
var envOrder = []orderKey{{col: "modified", desc: true}, {col: "created", desc: true}, {col: "id", desc: true}}

// FindEnvironmentVariables returns a project's variables ordered by modified,
// created and id, all descending, the window pg of them, and their total
// count. The zero Page returns all of them (builds need every value).
func (s *Store) FindEnvironmentVariables(ctx context.Context, projectID int64, pg Page) ([]*EnvironmentVariable, int, error) {
	const op = "store.FindEnvironmentVariables"
	var total int
	if err := s.read().get(ctx, &total, `SELECT COUNT(*) FROM environment_variables WHERE project_id = ?`, projectID); err != nil {
		return nil, 0, classify(op, err)
	}
	vs := []*EnvironmentVariable{}
	if total == 0 || pg.Offset >= total {
		return vs, total, nil
	}
	w := &where{}
	w.add("e.project_id = ?", projectID)
	if err := s.addKeyset(ctx, w, ` FROM environment_variables e`, "environment_variables", "e", envOrder, pg.Keyset); err != nil {
		return nil, 0, err
	}
	err := s.read().sel(ctx, &vs, s.page(`SELECT `+envColumns+` FROM environment_variables e`+w.String()+
		` ORDER BY `+s.orderBy("e", envOrder, backward(pg.Keyset)), pg.Limit, pg.Offset), w.args...)
	if err != nil {
		return nil, 0, classify(op, err)
	}
	inOrder(pg.Keyset, vs)
	for _, v := range vs {
		if err := s.openEnv(v); err != nil {
			return nil, 0, err
		}
	}
	return vs, total, nil
}

// openEnv decrypts a variable's value as read from the database.
func (s *Store) openEnv(v *EnvironmentVariable) error {
	plain, err := s.sealer.open(v.Value, aadEnvValue)
	v.Value = plain
	return err
}

// FindEnvironmentVariable returns the project's variable with that id.
func (s *Store) FindEnvironmentVariable(ctx context.Context, projectID, id int64) (*EnvironmentVariable, error) {
	var v EnvironmentVariable
	err := s.read().get(ctx, &v, `SELECT `+envColumns+` FROM environment_variables WHERE project_id = ? AND id = ?`, projectID, id)
	if err != nil {
		return nil, classify("store.FindEnvironmentVariable", err)
	}
	return &v, s.openEnv(&v)
}

// CreateEnvironmentVariable stores a validated variable; public ones are
// also given to pull-request builds. A name already used in the project is
// a Conflict.
func (s *Store) CreateEnvironmentVariable(ctx context.Context, projectID int64, name, value string, public bool) (*EnvironmentVariable, error) {
	v := &EnvironmentVariable{ProjectID: projectID, Name: name, Value: value, Public: public}
	sealed, err := s.sealer.seal(value, aadEnvValue)
	if err != nil {
		return nil, err
	}
	err = s.InTx(ctx, "store.CreateEnvironmentVariable", func(tx *Tx) error {
		v.Created, v.Modified = tx.Now, tx.Now
		id, err := tx.insert(ctx, `INSERT INTO environment_variables (project_id, name, value, created, modified, public) VALUES (?, ?, ?, ?, ?, ?)`,
			projectID, name, sealed, v.Created, v.Modified, public)
		v.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// DeleteEnvironmentVariable removes the project's variable with that id.
func (s *Store) DeleteEnvironmentVariable(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteEnvironmentVariable"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM environment_variables WHERE id = ? AND project_id = ?`, id, projectID)
		return mustAffect(op, res, err)
	})
}

// NewSecret returns a fresh webhook secret: 32 random bytes, hex encoded.
func NewSecret() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", errs.Wrap(errs.Internal, "store.NewSecret", err)
	}
	return hex.EncodeToString(raw), nil
}

const integrationColumns = `id, project_id, integration_type, secret, created`

// CreateIntegration stores an integration of the given type. An empty secret
// gets a fresh one: every integration has a secret.
func (tx *Tx) CreateIntegration(ctx context.Context, projectID int64, typ, secret string) (*Integration, error) {
	if secret == "" {
		var err error
		if secret, err = NewSecret(); err != nil {
			return nil, err
		}
	}
	in := &Integration{ProjectID: projectID, Type: typ, Secret: secret, Created: tx.Now}
	sealed, err := tx.s.sealer.seal(secret, aadIntegrationSecret)
	if err != nil {
		return nil, err
	}
	id, err := tx.insert(ctx, `INSERT INTO integrations (project_id, integration_type, secret, created) VALUES (?, ?, ?, ?)`,
		projectID, typ, sealed, tx.Now)
	in.ID = id
	return in, err
}

// CreateIntegration is CreateIntegration in its own transaction.
func (s *Store) CreateIntegration(ctx context.Context, projectID int64, typ string) (*Integration, error) {
	var in *Integration
	err := s.InTx(ctx, "store.CreateIntegration", func(tx *Tx) error {
		var err error
		in, err = tx.CreateIntegration(ctx, projectID, typ, "")
		return err
	})
	return in, err
}

// FindIntegrations returns a project's integrations in creation order.
func (s *Store) FindIntegrations(ctx context.Context, projectID int64) ([]*Integration, error) {
	ins := []*Integration{}
	err := s.read().sel(ctx, &ins, `SELECT `+integrationColumns+` FROM integrations WHERE project_id = ? ORDER BY id`, projectID)
	if err != nil {
		return nil, classify("store.FindIntegrations", err)
	}
	for _, in := range ins {
		if err := s.openIntegration(in); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// openIntegration decrypts an integration's secret as read from the database.
func (s *Store) openIntegration(in *Integration) error {
	plain, err := s.sealer.open(in.Secret, aadIntegrationSecret)
	in.Secret = plain
	return err
}

// FindIntegration returns the project's integration with that id.
func (s *Store) FindIntegration(ctx context.Context, projectID, id int64) (*Integration, error) {
	var in Integration
	err := s.read().get(ctx, &in, `SELECT `+integrationColumns+` FROM integrations WHERE project_id = ? AND id = ?`, projectID, id)
	if err != nil {
		return nil, classify("store.FindIntegration", err)
	}
	return &in, s.openIntegration(&in)
}

// DeleteIntegration removes the project's integration with that id.
func (s *Store) DeleteIntegration(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteIntegration"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM integrations WHERE id = ? AND project_id = ?`, id, projectID)
		return mustAffect(op, res, err)
	})
}

// RecordWebhookExchange stores one webhook request and its answer and keeps
// only the 10 most recent exchanges of the integration.
func (s *Store) RecordWebhookExchange(ctx context.Context, x WebhookExchange) error {
	return s.InTx(ctx, "store.RecordWebhookExchange", func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO webhook_exchanges (integration_id, created, request_headers, request_body, response_status, response_body)
			VALUES (?, ?, ?, ?, ?, ?)`, x.IntegrationID, tx.Now, x.RequestHeaders, x.RequestBody, x.ResponseStatus, x.ResponseBody); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `DELETE FROM webhook_exchanges WHERE integration_id = ? AND id NOT IN
			(SELECT id FROM webhook_exchanges WHERE integration_id = ? ORDER BY id DESC LIMIT 10)`, x.IntegrationID, x.IntegrationID)
		return err
	})
}

// FindWebhookExchanges returns an integration's recorded exchanges, newest first.
func (s *Store) FindWebhookExchanges(ctx context.Context, integrationID int64) ([]*WebhookExchange, error) {
	xs := []*WebhookExchange{}
	err := s.read().sel(ctx, &xs, `SELECT id, integration_id, created, request_headers, request_body, response_status, response_body
		FROM webhook_exchanges WHERE integration_id = ? ORDER BY id DESC`, integrationID)
	return xs, classify("store.FindWebhookExchanges", err)
}
