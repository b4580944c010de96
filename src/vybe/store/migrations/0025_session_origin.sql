-- Who started each session and in which project (vybe.store.record.start_session): the agent's
-- name and the project its working folder resolves to, written with the session's row by
-- whoever makes it (the hooks, the importers, `vybe proxy`, `vybe chat`, `vybe session`);
-- NULL where that writer does not know. `vybe ui`'s sessions page shows and filters them.
ALTER TABLE sessions ADD COLUMN agent_name TEXT;
ALTER TABLE sessions ADD COLUMN project_id TEXT;

-- The sessions made before: a session the hooks recorded takes the agent and the project of
-- its first prompt's event (user_prompt, whose metadata names the session's id without the
-- agent's prefix); any other with an agent's prefix takes that agent, the rest stay NULL.
UPDATE sessions SET agent_name = first.agent_name, project_id = first.project_id
FROM (
    SELECT json_extract(metadata, '$.session_id') AS sid, agent_name, project_id, MIN(id)
    FROM events WHERE kind = 'user_prompt' AND json_valid(metadata) GROUP BY 1
) AS first
WHERE substr(sessions.id, 1, instr(sessions.id, ':')) IN ('claude:', 'codex:', 'gemini:')
    AND substr(sessions.id, instr(sessions.id, ':') + 1) = first.sid;

UPDATE sessions SET agent_name = substr(id, 1, instr(id, ':') - 1)
WHERE agent_name IS NULL
    AND substr(id, 1, instr(id, ':')) IN ('claude:', 'codex:', 'gemini:', 'opencode:', 'aider:');

-- The sessions page filtered by agent or by project, newest first, a page at a time by id.
CREATE INDEX sessions_agent ON sessions (agent_name, id);
CREATE INDEX sessions_project ON sessions (project_id, id);
