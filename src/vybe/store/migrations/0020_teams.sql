-- Teams: every row of every table belongs to one. A file has one user, so one implicit
-- team, 'default', holds every row and nothing else changes; on a PostgreSQL server the
-- same columns carry row-level security (postgresql/0020_teams.sql). team_members records
-- which server roles belong to which team (empty here: a file has no roles).
CREATE TABLE teams (
    name TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);
INSERT INTO teams (name, created_at) VALUES ('default', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

CREATE TABLE team_members (
    role TEXT NOT NULL,
    team TEXT NOT NULL REFERENCES teams (name),
    read_only INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (role, team)
);

ALTER TABLE projects ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE tasks ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE task_dependencies ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE events ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE artifacts ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE idempotency ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE memory ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE sessions ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE messages ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE checkpoints ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE checkpoint_attempts ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE search_backlog ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE compaction_receipts ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE handoff_context ADD COLUMN team TEXT NOT NULL DEFAULT 'default';
ALTER TABLE session_typed ADD COLUMN team TEXT NOT NULL DEFAULT 'default';

-- An agent's name is its team's: two teams' agents may both be called claude.
CREATE TABLE agent_state_teams (
    team TEXT NOT NULL DEFAULT 'default',
    agent_name TEXT NOT NULL,
    last_seen_event_id INTEGER NOT NULL DEFAULT 0,
    focus_task_id TEXT,
    focus_project_id TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    last_active_at TEXT NOT NULL,
    PRIMARY KEY (team, agent_name)
);
INSERT INTO agent_state_teams (agent_name, last_seen_event_id, focus_task_id, focus_project_id,
    version, last_active_at)
SELECT agent_name, last_seen_event_id, focus_task_id, focus_project_id, version, last_active_at
FROM agent_state;
DROP TABLE agent_state;
ALTER TABLE agent_state_teams RENAME TO agent_state;

-- A memory's key is its team's too.
DROP INDEX memory_live_key;
CREATE UNIQUE INDEX memory_live_key ON memory (team, scope, scope_id, key)
    WHERE superseded_by IS NULL;
