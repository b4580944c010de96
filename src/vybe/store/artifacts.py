"""Files and outputs linked to a task."""

from __future__ import annotations

import sqlite3

from vybe import privacy
from vybe.store.rows import to_dicts


def insert(
    conn: sqlite3.Connection,
    artifact_id: str,
    task_id: str,
    event_id: int | None,
    file_path: str,
    content_type: str | None,
    project_id: str | None,
    at: str,
    content_sha256: str | None = None,
) -> None:
    conn.execute(
        "INSERT INTO artifacts (id, task_id, event_id, file_path, content_type, project_id,"
        " created_at, content_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            artifact_id,
            task_id,
            event_id,
            privacy.scrub(file_path),
            content_type,
            project_id,
            at,
            content_sha256,
        ),
    )


def same_content(
    conn: sqlite3.Connection, task_id: str, file_path: str, content_sha256: str
) -> dict | None:
    """The task's artifact of this path (as written: scrubbed) with these bytes, if any."""
    row = conn.execute(
        "SELECT id, event_id FROM artifacts"
        " WHERE task_id = ? AND file_path = ? AND content_sha256 = ? ORDER BY created_at LIMIT 1",
        (task_id, privacy.scrub(file_path), content_sha256),
    ).fetchone()
    return None if row is None else {"id": row["id"], "event_id": row["event_id"]}


def for_task(conn: sqlite3.Connection, task_id: str, limit: int) -> list[dict]:
    rows = conn.execute(
        "SELECT * FROM artifacts WHERE task_id = ? ORDER BY created_at DESC, id LIMIT ?",
        (task_id, limit),
    ).fetchall()
    return to_dicts(rows, ())
