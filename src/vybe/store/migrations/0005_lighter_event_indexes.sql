-- Most events carry no assignee and are not archived: index only the rows that do, so an
-- ordinary event insert maintains two fewer b-trees.

DROP INDEX events_assignee;
CREATE INDEX events_assignee ON events (assignee_agent, id) WHERE assignee_agent IS NOT NULL;

DROP INDEX events_archived;
CREATE INDEX events_archived ON events (archived_at) WHERE archived_at IS NOT NULL;
