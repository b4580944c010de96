"""The reads behind resume and the brief: deltas, hand-offs, recent context.

Every query here walks an index (events by id, task, kind or assignee; tasks_pick) and stops
at its LIMIT, so a resume costs the same on a store of a million events as on an empty one.
"""

from __future__ import annotations

import sqlite3

from vybe.store.rows import to_dicts
from vybe.store.tasks import NO_OPEN_BLOCKER, standing_handoff

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject

_EVENT_COLUMNS = (
    "id, kind, agent_name, task_id, project_id, message, metadata, assignee_agent, created_at"
)


def head(conn: sqlite3.Connection) -> tuple[int, str | None]:
    """The newest event: its id and time are the state a brief is computed as of."""
    row = conn.execute(
        "SELECT id, created_at FROM events WHERE id = (SELECT MAX(id) FROM events)"
    ).fetchone()
    return (int(row[0]), row[1]) if row else (0, None)


def deltas(conn: sqlite3.Connection, since_id: int, limit: int, agent: str) -> list[JSONObject]:
    """The live events after ``since_id``, but another agent's ``user_prompt`` events: what
    the person typed in another agent's session is that session's (a hand-off carries what
    belongs to a task), never news for this agent."""
    rows = conn.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE id > ? AND archived_at IS NULL"
        " AND (kind <> 'user_prompt' OR agent_name = ?) ORDER BY id LIMIT ?",
        (since_id, agent, limit),
    ).fetchall()
    return to_dicts(rows)


def handoff(conn: sqlite3.Connection, agent: str, project_id: str | None) -> tuple[int, str] | None:
    """The oldest hand-off to ``agent`` that still stands (no later one for the task) and
    whose task is pending with no open blocker: in the project, else of no project (with no
    project, of any): ``(event_id, task_id)``. A hand-off is not consumed by being seen, so
    one that arrives while the agent is busy waits. The CROSS JOIN keeps SQLite on the
    assignee index (a few rows) instead of the project's tasks."""
    where, order = "1 = 1", "e.id"
    params: tuple[str, ...] = ()
    if project_id is not None:
        where = "(tasks.project_id = ? OR tasks.project_id IS NULL)"
        order, params = "tasks.project_id IS NULL, e.id", (project_id,)
    row = conn.execute(
        "SELECT e.id, e.task_id FROM events e CROSS JOIN tasks ON tasks.id = e.task_id"
        f" WHERE e.assignee_agent = ? AND {standing_handoff('e')}"
        f" AND tasks.status = 'pending' AND {where} AND {NO_OPEN_BLOCKER}"
        f" ORDER BY {order} LIMIT 1",
        (agent, *params),
    ).fetchone()
    return (int(row[0]), row[1]) if row else None


def task_events(
    conn: sqlite3.Connection, task_id: str, limit: int, kind: str | None = None
) -> list[JSONObject]:
    """A task's newest live events (of one kind, if given), oldest first."""
    sql = f"SELECT {_EVENT_COLUMNS} FROM events WHERE task_id = ? AND archived_at IS NULL"
    params: tuple[Any, ...] = (task_id,)
    if kind is not None:
        sql += " AND kind = ?"
        params += (kind,)
    rows = conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*params, limit)).fetchall()
    return to_dicts(rows[::-1])


def scope_events(conn: sqlite3.Connection, project_id: str | None, limit: int) -> list[JSONObject]:
    """The newest live events of a project (with the project-less ones), or of everything.

    The project's and the project-less newest are read apart, each along its index, then
    merged: an OR of the two makes SQLite sort every event of a busy project."""
    if project_id is None:
        rows = conn.execute(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE archived_at IS NULL"
            " ORDER BY id DESC LIMIT ?",
            (limit,),
        ).fetchall()
    else:
        newest = (
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE project_id {{}} AND archived_at IS NULL"
            " ORDER BY id DESC LIMIT ?"
        )
        rows = conn.execute(
            f"SELECT * FROM ({newest.format('= ?')}) UNION ALL"
            f" SELECT * FROM ({newest.format('IS NULL')}) ORDER BY id DESC LIMIT ?",
            (project_id, limit, limit, limit),
        ).fetchall()
    return to_dicts(rows[::-1])


def kind_events(
    conn: sqlite3.Connection, kind: str, project_id: str | None, limit: int
) -> list[JSONObject]:
    """The newest live events of one kind (in a project, with the project-less ones)."""
    sql = f"SELECT {_EVENT_COLUMNS} FROM events WHERE kind = ? AND archived_at IS NULL"
    params: tuple[Any, ...] = (kind,)
    if project_id is not None:
        sql += " AND (project_id = ? OR project_id IS NULL)"
        params += (project_id,)
    rows = conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*params, limit)).fetchall()
    return to_dicts(rows[::-1])
