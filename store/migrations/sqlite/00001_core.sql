-- +goose Up
CREATE TABLE users (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    username     TEXT NOT NULL UNIQUE,
    email        TEXT NOT NULL DEFAULT '',
    is_active    BOOLEAN NOT NULL DEFAULT 1,
    is_superuser BOOLEAN NOT NULL DEFAULT 0,
    created      TIMESTAMP NOT NULL
);

CREATE TABLE tokens (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    hash    TEXT NOT NULL UNIQUE,
    prefix  TEXT NOT NULL,
    created TIMESTAMP NOT NULL
);
CREATE INDEX tokens_user ON tokens(user_id);

CREATE TABLE projects (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    name                    TEXT NOT NULL,
    slug                    TEXT NOT NULL UNIQUE,
    description             TEXT NOT NULL DEFAULT '',
    language                TEXT NOT NULL DEFAULT 'en',
    programming_language    TEXT NOT NULL DEFAULT 'words',
    repo                    TEXT NOT NULL,
    repo_type               TEXT NOT NULL DEFAULT 'git',
    homepage                TEXT NOT NULL DEFAULT '',
    default_version         TEXT NOT NULL DEFAULT 'latest',
    default_branch          TEXT,
    detected_default_branch TEXT,
    single_version          BOOLEAN NOT NULL DEFAULT 0,
    documentation_type      TEXT NOT NULL DEFAULT 'sphinx',
    analytics_code          TEXT,
    show_version_warning    BOOLEAN NOT NULL DEFAULT 0,
    privacy_level           TEXT NOT NULL DEFAULT 'public',
    version_privacy_level   TEXT NOT NULL DEFAULT 'public',
    tags                    TEXT NOT NULL DEFAULT '[]',
    skip                    BOOLEAN NOT NULL DEFAULT 0,
    enable_pdf_build        BOOLEAN NOT NULL DEFAULT 0,
    enable_epub_build       BOOLEAN NOT NULL DEFAULT 0,
    requirements_file       TEXT,
    conf_py_file            TEXT NOT NULL DEFAULT '',
    install_project         BOOLEAN NOT NULL DEFAULT 0,
    python_interpreter      TEXT NOT NULL DEFAULT 'python3',
    use_system_packages     BOOLEAN NOT NULL DEFAULT 0,
    external_builds_enabled BOOLEAN NOT NULL DEFAULT 0,
    build_time_limit        INTEGER,
    translation_of          INTEGER REFERENCES projects(id) ON DELETE SET NULL,
    created                 TIMESTAMP NOT NULL,
    modified                TIMESTAMP NOT NULL
);
CREATE INDEX projects_translation_of ON projects(translation_of);

CREATE TABLE project_users (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    UNIQUE (project_id, user_id)
);
CREATE INDEX project_users_user ON project_users(user_id);

CREATE TABLE versions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    slug          TEXT NOT NULL,
    verbose_name  TEXT NOT NULL,
    identifier    TEXT NOT NULL DEFAULT '',
    type          TEXT NOT NULL DEFAULT 'unknown',
    active        BOOLEAN NOT NULL DEFAULT 0,
    built         BOOLEAN NOT NULL DEFAULT 0,
    uploaded      BOOLEAN NOT NULL DEFAULT 0,
    machine       BOOLEAN NOT NULL DEFAULT 0,
    privacy_level TEXT NOT NULL DEFAULT 'public',
    has_pdf       BOOLEAN NOT NULL DEFAULT 0,
    has_epub      BOOLEAN NOT NULL DEFAULT 0,
    has_htmlzip   BOOLEAN NOT NULL DEFAULT 0,
    created       TIMESTAMP NOT NULL,
    UNIQUE (project_id, slug)
);

CREATE TABLE builds (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_id    INTEGER NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
    type          TEXT NOT NULL DEFAULT 'html',
    state         TEXT NOT NULL DEFAULT 'triggered',
    created       TIMESTAMP NOT NULL,
    started       TIMESTAMP,
    finished_at   TIMESTAMP,
    success       BOOLEAN NOT NULL DEFAULT 1,
    error         TEXT NOT NULL DEFAULT '',
    exit_code     INTEGER,
    commit_hash   TEXT,
    length        INTEGER,
    config        TEXT NOT NULL DEFAULT '{}',
    builder       TEXT NOT NULL DEFAULT '',
    lease_owner   TEXT,
    lease_expires TIMESTAMP
);
CREATE INDEX builds_project ON builds(project_id, created);
CREATE INDEX builds_version ON builds(version_id, created);
CREATE INDEX builds_state ON builds(state, created);

CREATE TABLE build_commands (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    build_id    INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE,
    command     TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    output      TEXT NOT NULL DEFAULT '',
    exit_code   INTEGER,
    start_time  TIMESTAMP NOT NULL,
    end_time    TIMESTAMP
);
CREATE INDEX build_commands_build ON build_commands(build_id);

-- A queued version sync without a Build record (webhooks ask for them).
CREATE TABLE sync_tasks (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    created       TIMESTAMP NOT NULL,
    started       TIMESTAMP,
    lease_owner   TEXT,
    lease_expires TIMESTAMP
);

CREATE TABLE project_relationships (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    parent_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    child_id  INTEGER NOT NULL UNIQUE REFERENCES projects(id) ON DELETE CASCADE,
    alias     TEXT NOT NULL,
    UNIQUE (parent_id, alias)
);

CREATE TABLE redirects (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    type        TEXT NOT NULL,
    from_url    TEXT NOT NULL DEFAULT '',
    to_url      TEXT NOT NULL DEFAULT '',
    http_status INTEGER NOT NULL DEFAULT 302,
    created     TIMESTAMP NOT NULL,
    modified    TIMESTAMP NOT NULL
);
CREATE INDEX redirects_project ON redirects(project_id);

CREATE TABLE environment_variables (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    value      TEXT NOT NULL,
    created    TIMESTAMP NOT NULL,
    modified   TIMESTAMP NOT NULL,
    UNIQUE (project_id, name)
);

CREATE TABLE integrations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id       INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    integration_type TEXT NOT NULL,
    secret           TEXT NOT NULL,
    created          TIMESTAMP NOT NULL
);
CREATE INDEX integrations_project ON integrations(project_id);

CREATE TABLE webhook_exchanges (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    integration_id   INTEGER NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    created          TIMESTAMP NOT NULL,
    request_headers  TEXT NOT NULL,
    request_body     TEXT NOT NULL,
    response_status  INTEGER NOT NULL,
    response_body    TEXT NOT NULL
);
CREATE INDEX webhook_exchanges_integration ON webhook_exchanges(integration_id);

-- +goose Down
DROP TABLE webhook_exchanges;
DROP TABLE integrations;
DROP TABLE environment_variables;
DROP TABLE redirects;
DROP TABLE project_relationships;
DROP TABLE sync_tasks;
DROP TABLE build_commands;
DROP TABLE builds;
DROP TABLE versions;
DROP TABLE project_users;
DROP TABLE projects;
DROP TABLE tokens;
DROP TABLE users;
