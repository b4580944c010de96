-- PostgreSQL's 0005_lighter_event_indexes: index only the events that carry an assignee or
-- are archived.

DROP INDEX events_assignee;
CREATE INDEX events_assignee ON events (assignee_agent, id) WHERE assignee_agent IS NOT NULL;

DROP INDEX events_archived;
CREATE INDEX events_archived ON events (archived_at) WHERE archived_at IS NOT NULL;
