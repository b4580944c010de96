"""The append-only event log."""

from __future__ import annotations

import sqlite3

from vybe import privacy
from vybe.store.rows import strict_json, to_dicts
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject


class NewEvent(Row):
    """One event to append to the log."""

    __slots__ = ()
    kind: str
    agent: str
    message: str = ""
    task_id: str | None = None
    project_id: str | None = None
    metadata: JSONObject | None = None
    assignee_agent: str | None = None


def insert(conn: sqlite3.Connection, event: NewEvent, at: str) -> int:
    row = conn.execute(
        "INSERT INTO events (kind, agent_name, task_id, project_id, message, metadata,"
        " assignee_agent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            event.kind,
            event.agent,
            event.task_id,
            event.project_id,
            privacy.scrub(event.message) if event.message is not None else None,
            privacy.scrub_json(strict_json(event.metadata)) if event.metadata is not None else None,
            event.assignee_agent,
            at,
        ),
    ).fetchone()
    return int(row[0])


class EventQuery(Row):
    """Filters of an event listing."""

    __slots__ = ()
    agent: str | None = None
    task_id: str | None = None
    kind: str | None = None
    since_id: int = 0
    limit: int = 50
    ascending: bool = False
    include_archived: bool = False


def select(conn: sqlite3.Connection, query: EventQuery) -> list[JSONObject]:
    where = ["id > ?"]
    params: list[object] = [query.since_id]
    if query.agent is not None:
        where.append("agent_name = ?")
        params.append(query.agent)
    if query.task_id is not None:
        where.append("task_id = ?")
        params.append(query.task_id)
    if query.kind is not None:
        where.append("kind = ?")
        params.append(query.kind)
    if not query.include_archived:
        where.append("archived_at IS NULL")
    order = "ASC" if query.ascending else "DESC"
    rows = conn.execute(
        f"SELECT * FROM events WHERE {' AND '.join(where)} ORDER BY id {order} LIMIT ?",
        (*params, query.limit),
    ).fetchall()
    return to_dicts(rows)


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM events").fetchone()[0])
