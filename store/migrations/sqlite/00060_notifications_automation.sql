-- +goose Up
-- Build notifications: a project's outgoing webhooks and the addresses
-- mailed when a build fails; the deliveries queued for them (one row per
-- event and receiver, claimed by workers with a lease) and each attempt
-- at sending one.
CREATE TABLE webhooks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    url        TEXT NOT NULL,
    secret     TEXT NOT NULL,
    -- the events the webhook is sent for, space-separated and sorted
    events     TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created    TIMESTAMP NOT NULL,
    modified   TIMESTAMP NOT NULL
);
CREATE INDEX webhooks_project ON webhooks(project_id);

CREATE TABLE email_hooks (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    created    TIMESTAMP NOT NULL,
    UNIQUE (project_id, email)
);

CREATE TABLE notification_deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id      INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    webhook_id      INTEGER REFERENCES webhooks(id) ON DELETE CASCADE,
    email_hook_id   INTEGER REFERENCES email_hooks(id) ON DELETE CASCADE,
    build_id        INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    -- queued, delivered or failed (given up)
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt    TIMESTAMP NOT NULL,
    lease_owner     TEXT,
    lease_expires   TIMESTAMP,
    created         TIMESTAMP NOT NULL,
    finished        TIMESTAMP,
    request_headers TEXT NOT NULL DEFAULT '',
    request_body    TEXT NOT NULL DEFAULT '',
    error           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX notification_deliveries_queue ON notification_deliveries(state, next_attempt);
CREATE INDEX notification_deliveries_webhook ON notification_deliveries(webhook_id);
CREATE INDEX notification_deliveries_email_hook ON notification_deliveries(email_hook_id);
CREATE INDEX notification_deliveries_build ON notification_deliveries(build_id);

CREATE TABLE notification_attempts (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id     INTEGER NOT NULL REFERENCES notification_deliveries(id) ON DELETE CASCADE,
    started         TIMESTAMP NOT NULL,
    duration_ms     INTEGER NOT NULL,
    -- NULL when no answer came (timeout, refused connection, SMTP error)
    response_status INTEGER,
    response_body   TEXT NOT NULL,
    error           TEXT NOT NULL
);
CREATE INDEX notification_attempts_delivery ON notification_attempts(delivery_id);

-- Automation rules: what to do with versions a sync adds (or, for
-- delete-version, active versions whose branch or tag left the
-- repository), tried in priority order; and the record of each match.
CREATE TABLE automation_rules (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id           INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    priority             INTEGER NOT NULL,
    description          TEXT NOT NULL,
    match_arg            TEXT NOT NULL,
    predefined_match_arg TEXT,
    action               TEXT NOT NULL,
    version_type         TEXT NOT NULL,
    created              TIMESTAMP NOT NULL,
    modified             TIMESTAMP NOT NULL
);
CREATE INDEX automation_rules_project ON automation_rules(project_id, priority);

CREATE TABLE automation_rule_matches (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    rule_id      INTEGER NOT NULL REFERENCES automation_rules(id) ON DELETE CASCADE,
    version_name TEXT NOT NULL,
    version_type TEXT NOT NULL,
    match_arg    TEXT NOT NULL,
    action       TEXT NOT NULL,
    created      TIMESTAMP NOT NULL
);
CREATE INDEX automation_rule_matches_rule ON automation_rule_matches(rule_id);

-- +goose Down
DROP TABLE automation_rule_matches;
DROP TABLE automation_rules;
DROP TABLE notification_attempts;
DROP TABLE notification_deliveries;
DROP TABLE email_hooks;
DROP TABLE webhooks;
