"""Reading the event log, and linking artifacts to tasks."""

from __future__ import annotations

import sqlite3

from vybe import clock, limits
from vybe.actions.tasks import require_task
from vybe.store import Store
from vybe.store import artifacts as artifact_rows
from vybe.store import events as event_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject


def list_events(store: Store, query: event_rows.EventQuery) -> JSONObject:
    with store.snapshot() as conn:
        events = event_rows.select(conn, query)
    return {
        "agent": query.agent,
        "task_id": query.task_id,
        "kind": query.kind,
        "since_id": query.since_id,
        "count": len(events),
        "events": events,
    }


# Files up to this size are hashed when linked (content-addressed); a larger one is linked
# by its path alone.
HASHED_MAX = 256 * 1024 * 1024


def content_of(file_path: str) -> str | None:
    """The SHA-256 of the file's bytes now, read before any transaction opens; None for a
    path that is no readable file (or one over HASHED_MAX)."""
    from vybe.digest import file_sha256

    return file_sha256(file_path, HASHED_MAX)


def link_artifact(
    conn: sqlite3.Connection,
    agent: str,
    task: JSONObject,
    file_path: str,
    content_type: str | None,
    event_id: int | None = None,
    content_sha256: str | None = None,
) -> JSONObject:
    """Insert one artifact row, with its own event when no event carries it; the same path
    with the same bytes (``content_sha256``) already linked to the task is that artifact,
    returned with ``deduplicated`` and nothing written."""
    limits.text("file_path", file_path, limits.PATH_MAX, required=True)
    if content_type is not None:
        limits.text("content_type", content_type, limits.KIND_MAX)
    if content_sha256 is not None:
        found = artifact_rows.same_content(conn, task["id"], file_path, content_sha256)
        if found is not None:
            return {
                "artifact_id": found["id"],
                "file_path": file_path,
                "event_id": found["event_id"],
                "content_sha256": content_sha256,
                "deduplicated": True,
            }
    if event_id is None:
        event_id = event_rows.insert(
            conn,
            event_rows.NewEvent("artifact_added", agent, file_path, task["id"], task["project_id"]),
            clock.now_iso(),
        )
    artifact_id = clock.new_id("artifact")
    artifact_rows.insert(
        conn,
        artifact_id,
        task["id"],
        event_id,
        file_path,
        content_type,
        task["project_id"],
        clock.now_iso(),
        content_sha256,
    )
    return {
        "artifact_id": artifact_id,
        "file_path": file_path,
        "event_id": event_id,
        "content_sha256": content_sha256,
        "deduplicated": False,
    }


def add_artifact(
    store: Store,
    agent: str,
    request_id: str,
    *,
    task_id: str,
    file_path: str,
    content_type: str | None = None,
) -> JSONObject:
    limits.text("file_path", file_path, limits.PATH_MAX, required=True)
    args = {"task_id": task_id, "file_path": file_path, "content_type": content_type}
    content = content_of(file_path)

    def run(conn: sqlite3.Connection) -> JSONObject:
        task = require_task(conn, task_id)
        linked = link_artifact(conn, agent, task, file_path, content_type, None, content)
        return {"artifact": linked}

    return store.idempotent(agent, request_id, "artifacts.add", args, run)


def list_artifacts(store: Store, task_id: str, limit: int) -> JSONObject:
    with store.snapshot() as conn:
        require_task(conn, task_id)
        artifacts = artifact_rows.for_task(conn, task_id, limit)
    return {"task_id": task_id, "count": len(artifacts), "artifacts": artifacts}
