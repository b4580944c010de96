-- With no project focus, the brief ranks every project's memory: the candidate lists of a
-- scope across all its scope ids, each along its own index, so the cost stays that of a
-- few index steps however many projects' entries the store holds.
CREATE INDEX memory_scope_recent ON memory (scope, pinned, updated_at)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_scope_read ON memory (scope, pinned, access_count)
    WHERE superseded_by IS NULL;
CREATE INDEX memory_scope_directives ON memory (scope, access_count)
    WHERE kind = 'directive' AND superseded_by IS NULL;
