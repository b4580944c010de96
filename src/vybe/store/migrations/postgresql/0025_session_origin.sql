-- Who started each session and in which project, as on SQLite (0025_session_origin.sql).
-- The columns are the sessions table's: its rows' team policies (0020_teams.sql) cover them.
ALTER TABLE sessions ADD COLUMN agent_name TEXT;
ALTER TABLE sessions ADD COLUMN project_id TEXT;

-- The sessions made before, as on SQLite: the hooks' first prompt's event of the session (in
-- the session's team), else the agent its id's prefix names, else NULL.
UPDATE sessions SET agent_name = first.agent_name, project_id = first.project_id
FROM (
    SELECT DISTINCT ON (team, metadata::jsonb ->> 'session_id')
        team, metadata::jsonb ->> 'session_id' AS sid, agent_name, project_id
    FROM events WHERE kind = 'user_prompt' AND metadata LIKE '{%'
    ORDER BY team, metadata::jsonb ->> 'session_id', id
) AS first
WHERE split_part(sessions.id, ':', 1) IN ('claude', 'codex', 'gemini')
    AND strpos(sessions.id, ':') > 0
    AND substr(sessions.id, strpos(sessions.id, ':') + 1) = first.sid
    AND sessions.team = first.team;

UPDATE sessions SET agent_name = split_part(id, ':', 1)
WHERE agent_name IS NULL AND strpos(id, ':') > 0
    AND split_part(id, ':', 1) IN ('claude', 'codex', 'gemini', 'opencode', 'aider');

CREATE INDEX sessions_agent ON sessions (agent_name, id);
CREATE INDEX sessions_project ON sessions (project_id, id);
