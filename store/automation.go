package store

import (
	"context"
	"time"
)

// Automation rule actions (Read the Docs' VersionAutomationRule actions).
const (
	ActionActivateVersion    = "activate-version"
	ActionHideVersion        = "hide-version"
	ActionMakeVersionPublic  = "make-version-public"
	ActionMakeVersionPrivate = "make-version-private"
	ActionSetDefaultVersion  = "set-default-version"
	ActionDeleteVersion      = "delete-version"
)

// AutomationRule says what to do with the versions a sync adds (or, for
// ActionDeleteVersion, the active versions whose branch or tag left the
// repository) whose name matches it. A project's rules are tried in
// Priority order (0 first).
type AutomationRule struct {
	ID          int64  `db:"id"`
	ProjectID   int64  `db:"project_id"`
	Priority    int    `db:"priority"`
	Description string `db:"description"`
	// MatchArg is the custom regular expression; PredefinedMatchArg, when
	// set (all-versions, semver-versions), is matched instead.
	MatchArg           string    `db:"match_arg"`
	PredefinedMatchArg *string   `db:"predefined_match_arg"`
	Action             string    `db:"action"`
	VersionType        string    `db:"version_type"`
	Created            time.Time `db:"created"`
	Modified           time.Time `db:"modified"`
	// MatchList holds the rule's recorded matches when a reader loaded
	// them with it (nil when not loaded).
	MatchList []*AutomationRuleMatch `db:"-"`
}

// AutomationRuleMatch records one application of a rule to a version.
type AutomationRuleMatch struct {
	ID          int64     `db:"id"`
	RuleID      int64     `db:"rule_id"`
	VersionName string    `db:"version_name"`
	VersionType string    `db:"version_type"`
	MatchArg    string    `db:"match_arg"`
	Action      string    `db:"action"`
	Created     time.Time `db:"created"`
}

// AutomationRuleUpdate holds the fields of a rule to change; nil keeps one.
type AutomationRuleUpdate struct {
	Description        *string
	MatchArg           *string
	PredefinedMatchArg **string
	Action             *string
	VersionType        *string
	Priority           *int // moves the rule; past the end means last
}

const ruleColumns = `id, project_id, priority, description, match_arg, predefined_match_arg, action, version_type, created, modified`

// ruleOrder is the order rules are tried and listed in.
var ruleOrder = []orderKey{{col: "priority"}, {col: "id"}}

// FindAutomationRules returns a project's rules in priority order, the
// window pg of them and their total count.
func (s *Store) FindAutomationRules(ctx context.Context, projectID int64, pg Page) ([]*AutomationRule, int, error) {
	rs := []*AutomationRule{}
	total, err := s.findProjectPage(ctx, "store.FindAutomationRules", &rs, "automation_rules", ruleColumns, ruleOrder, projectID, pg)
	if err != nil {
		return nil, 0, err
	}
	inOrder(pg.Keyset, rs)
	return rs, total, nil
}

// FindAutomationRules is FindAutomationRules (all of them) inside tx.
func (tx *Tx) FindAutomationRules(ctx context.Context, projectID int64) ([]*AutomationRule, error) {
	rs := []*AutomationRule{}
	err := tx.sel(ctx, &rs, `SELECT `+ruleColumns+` FROM automation_rules WHERE project_id = ? ORDER BY priority, id`, projectID)
	return rs, err
}

// FindAutomationRule returns the project's rule with that id.
func (s *Store) FindAutomationRule(ctx context.Context, projectID, id int64) (*AutomationRule, error) {
	var r AutomationRule
	err := s.read().get(ctx, &r, `SELECT `+ruleColumns+` FROM automation_rules WHERE project_id = ? AND id = ?`, projectID, id)
	if err != nil {
		return nil, classify("store.FindAutomationRule", err)
	}
	return &r, nil
}

// lockRules serialises writers of a project's rule order (the project row
// is locked on PostgreSQL; SQLite's single writer serialises).
func (tx *Tx) lockRules(ctx context.Context, projectID int64) error {
	if tx.s.dialect != Postgres {
		return nil
	}
	_, err := tx.exec(ctx, `SELECT id FROM projects WHERE id = ? FOR UPDATE`, projectID)
	return err
}

// CreateAutomationRule stores a validated rule at position priority (past
// the end, or negative, means last), moving the rules from there down one.
func (s *Store) CreateAutomationRule(ctx context.Context, r AutomationRule) (*AutomationRule, error) {
	err := s.InTx(ctx, "store.CreateAutomationRule", func(tx *Tx) error {
		if err := tx.lockRules(ctx, r.ProjectID); err != nil {
			return err
		}
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM automation_rules WHERE project_id = ?`, r.ProjectID); err != nil {
			return err
		}
		if r.Priority < 0 || r.Priority > n {
			r.Priority = n
		}
		if _, err := tx.exec(ctx, `UPDATE automation_rules SET priority = priority + 1 WHERE project_id = ? AND priority >= ?`, r.ProjectID, r.Priority); err != nil {
			return err
		}
		r.Created, r.Modified = tx.Now, tx.Now
		id, err := tx.insert(ctx, `INSERT INTO automation_rules (project_id, priority, description, match_arg, predefined_match_arg, action, version_type, created, modified)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ProjectID, r.Priority, r.Description, r.MatchArg, r.PredefinedMatchArg, r.Action, r.VersionType, r.Created, r.Modified)
		r.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// UpdateAutomationRule changes the fields upd gives of the project's rule;
// a new Priority moves it, the rules between shifting by one.
func (s *Store) UpdateAutomationRule(ctx context.Context, projectID, id int64, upd AutomationRuleUpdate) (*AutomationRule, error) {
	const op = "store.UpdateAutomationRule"
	var out AutomationRule
	err := s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockRules(ctx, projectID); err != nil {
			return err
		}
		var r AutomationRule
		if err := tx.get(ctx, &r, `SELECT `+ruleColumns+` FROM automation_rules WHERE project_id = ? AND id = ?`, projectID, id); err != nil {
			return err
		}
		if upd.Description != nil {
			r.Description = *upd.Description
		}
		if upd.MatchArg != nil {
			r.MatchArg = *upd.MatchArg
		}
		if upd.PredefinedMatchArg != nil {
			r.PredefinedMatchArg = *upd.PredefinedMatchArg
		}
		if upd.Action != nil {
			r.Action = *upd.Action
		}
		if upd.VersionType != nil {
			r.VersionType = *upd.VersionType
		}
		if upd.Priority != nil && *upd.Priority != r.Priority {
			var n int
			if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM automation_rules WHERE project_id = ?`, projectID); err != nil {
				return err
			}
			to := *upd.Priority
			if to < 0 || to >= n {
				to = n - 1
			}
			if to < r.Priority {
				_, err := tx.exec(ctx, `UPDATE automation_rules SET priority = priority + 1 WHERE project_id = ? AND priority >= ? AND priority < ?`, projectID, to, r.Priority)
				if err != nil {
					return err
				}
			} else if to > r.Priority {
				_, err := tx.exec(ctx, `UPDATE automation_rules SET priority = priority - 1 WHERE project_id = ? AND priority > ? AND priority <= ?`, projectID, r.Priority, to)
				if err != nil {
					return err
				}
			}
			r.Priority = to
		}
		r.Modified = tx.Now
		if _, err := tx.exec(ctx, `UPDATE automation_rules SET priority = ?, description = ?, match_arg = ?, predefined_match_arg = ?, action = ?,
			version_type = ?, modified = ? WHERE id = ?`, r.Priority, r.Description, r.MatchArg, r.PredefinedMatchArg, r.Action, r.VersionType, r.Modified, id); err != nil {
			return err
		}
		out = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteAutomationRule removes the project's rule with that id; the rules
// after it move up one.
func (s *Store) DeleteAutomationRule(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteAutomationRule"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockRules(ctx, projectID); err != nil {
			return err
		}
		var pos int
		if err := tx.get(ctx, &pos, `SELECT priority FROM automation_rules WHERE id = ? AND project_id = ?`, id, projectID); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `DELETE FROM automation_rules WHERE id = ?`, id); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `UPDATE automation_rules SET priority = priority - 1 WHERE project_id = ? AND priority > ?`, projectID, pos)
		return err
	})
}

// RecordAutomationRuleMatch records that a rule was applied to a version
// and keeps the rule's 15 most recent matches (as Read the Docs).
func (tx *Tx) RecordAutomationRuleMatch(ctx context.Context, m AutomationRuleMatch) error {
	if _, err := tx.exec(ctx, `INSERT INTO automation_rule_matches (rule_id, version_name, version_type, match_arg, action, created)
		VALUES (?, ?, ?, ?, ?, ?)`, m.RuleID, m.VersionName, m.VersionType, m.MatchArg, m.Action, tx.Now); err != nil {
		return err
	}
	_, err := tx.exec(ctx, `DELETE FROM automation_rule_matches WHERE rule_id = ? AND id NOT IN
		(SELECT id FROM automation_rule_matches WHERE rule_id = ? ORDER BY id DESC LIMIT 15)`, m.RuleID, m.RuleID)
	return err
}

// FindAutomationRuleMatches returns the recorded matches of the rules,
// newest first.
func (s *Store) FindAutomationRuleMatches(ctx context.Context, ruleIDs []int64) ([]*AutomationRuleMatch, error) {
	ms := []*AutomationRuleMatch{}
	if len(ruleIDs) == 0 {
		return ms, nil
	}
	err := s.read().selIn(ctx, &ms, `SELECT id, rule_id, version_name, version_type, match_arg, action, created
		FROM automation_rule_matches WHERE rule_id IN (?) ORDER BY id DESC`, ruleIDs)
	return ms, classify("store.FindAutomationRuleMatches", err)
}

// SetProjectDefaultVersion makes slug the project's default version inside
// tx (an automation rule's set-default-version).
func (tx *Tx) SetProjectDefaultVersion(ctx context.Context, projectID int64, slug string) error {
	res, err := tx.exec(ctx, `UPDATE projects SET default_version = ?, modified = ? WHERE id = ?`, slug, tx.Now, projectID)
	return mustAffect("store.SetProjectDefaultVersion", res, err)
}
