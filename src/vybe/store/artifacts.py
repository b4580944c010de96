"""Files and outputs linked to a task."""

from __future__ import annotations

import sqlite3

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
) -> None:
    conn.execute(
        "INSERT INTO artifacts (id, task_id, event_id, file_path, content_type, project_id,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (artifact_id, task_id, event_id, file_path, content_type, project_id, at),
    )


def for_task(conn: sqlite3.Connection, task_id: str, limit: int) -> list[dict]:
    rows = conn.execute(
        "SELECT * FROM artifacts WHERE task_id = ? ORDER BY created_at DESC, id LIMIT ?",
        (task_id, limit),
    ).fetchall()
    return to_dicts(rows, ())
