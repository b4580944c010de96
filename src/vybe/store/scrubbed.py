"""Which text columns of the schema the store scrubs (``vybe.privacy.scrub``) on every write,
and which it keeps as written because no person's or tool's words can be in them (ids,
names vybe or an agent chose, times, enumerations, digests, lists of numbers). A test
(tests/privacy/test_store_scrubbing.py) holds every text column of the schema to one of
the two, so a new column is a decision, never forgotten; the search indexes are filled
from the scrubbed rows."""

SCRUBBED = {
    "messages": ("content_text", "content_json"),
    "events": ("message", "metadata"),
    "memory": ("value",),
    "tasks": ("title", "description", "metadata", "blocked_reason"),
    "handoff_context": ("context",),
    "idempotency": ("result_json",),
    "checkpoints": ("mind", "now", "files"),
    "checkpoint_attempts": ("problems", "flagged_references", "error"),
}
KEPT = {
    "agent_state": ("agent_name", "focus_task_id", "focus_project_id", "last_active_at"),
    "artifacts": (
        "id",
        "task_id",
        "file_path",
        "content_type",
        "project_id",
        "created_at",
        "content_sha256",
    ),
    "checkpoint_attempts": ("session_id", "run_id", "mode", "reason", "outcome", "fallbacks")
    + ("usage", "created_at"),
    "checkpoints": ("session_id", "mode", "memo", "kept_inputs", "skills", "created_at"),
    "compaction_receipts": ("session_id", "agent_name", "compactor", "trigger", "verbatim")
    + ("kept", "cut", "released", "created_at", "completed_at", "source_key"),
    "events": ("kind", "agent_name", "task_id", "project_id", "assignee_agent", "created_at")
    + ("archived_at",),
    "handoff_context": ("task_id", "from_agent", "to_agent", "session_id", "created_at"),
    "idempotency": ("agent_name", "request_id", "command", "args_sha256", "created_at"),
    "memory": ("id", "key", "value_type", "scope", "scope_id", "kind", "expires_at")
    + ("last_accessed_at", "source_task_id", "supersedes", "superseded_by", "superseded_at")
    + ("created_at", "updated_at"),
    "messages": ("session_id", "type", "source", "created_at"),
    "projects": ("id", "name", "metadata", "created_at"),
    "schema_migrations": ("name", "applied_at"),
    "session_typed": ("session_id",),
    "sessions": ("id", "created_at"),
    "task_dependencies": ("task_id", "depends_on_task_id", "created_at"),
    "tasks": ("id", "status", "project_id", "claimed_by", "lease_expires_at", "created_at")
    + ("updated_at",),
}
