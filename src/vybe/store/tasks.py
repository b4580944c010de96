"""Tasks, their dependencies and their claims."""

from __future__ import annotations

import sqlite3

from vybe import clock, privacy
from vybe.store.rows import strict_json, to_dict, to_dicts
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject

# A task is ready when it is pending and every task it depends on is completed.
NO_OPEN_BLOCKER = (
    "NOT EXISTS (SELECT 1 FROM task_dependencies d JOIN tasks b ON b.id = d.depends_on_task_id"
    " WHERE d.task_id = tasks.id AND b.status <> 'completed')"
)


def standing_handoff(alias: str) -> str:
    """SQL: the events row ``alias`` is a hand-off that no later hand-off of its task replaced."""
    return (
        f"{alias}.kind = 'task_assigned' AND NOT EXISTS (SELECT 1 FROM events later"
        f" WHERE later.task_id = {alias}.task_id AND later.id > {alias}.id"
        " AND later.kind = 'task_assigned')"
    )


# A task whose standing hand-off is addressed to another agent waits for that agent.
NOT_HANDED_TO_ANOTHER = (
    "NOT EXISTS (SELECT 1 FROM events h WHERE h.task_id = tasks.id AND h.assignee_agent <> ?"
    f" AND {standing_handoff('h')})"
)
# The most urgent first: every pick of a task walks the tasks_pick index in this order.
PICK_ORDER = " ORDER BY priority DESC, created_at ASC, id ASC"
# On PostgreSQL a pick locks the task it returns and passes over those other claimers hold
# (SQLite has one writer at a time and reads this as a comment).
SKIP_LOCKED = " /*postgresql: FOR UPDATE OF tasks SKIP LOCKED*/"


class NewTask(Row):
    """One task to create."""

    __slots__ = ()
    task_id: str
    title: str
    description: str = ""
    priority: int = 0
    project_id: str | None = None
    metadata: Any = None


def insert(conn: sqlite3.Connection, task: NewTask, at: str) -> JSONObject:
    row = conn.execute(
        "INSERT INTO tasks (id, title, description, priority, project_id, metadata,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        (
            task.task_id,
            privacy.scrub(task.title),
            privacy.scrub(task.description) if task.description is not None else None,
            task.priority,
            task.project_id,
            privacy.scrub_json(strict_json(task.metadata)) if task.metadata is not None else None,
            at,
            at,
        ),
    ).fetchone()
    return to_dict(row)  # type: ignore[return-value]


def get(conn: sqlite3.Connection, task_id: str) -> JSONObject | None:
    return to_dict(conn.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone())


class TaskQuery(Row):
    """Filters of a task listing; ``outside_projects`` keeps only tasks of no project, and
    ``free_for`` (an agent) leaves out tasks handed off to another agent."""

    __slots__ = ()
    status: str | None = None
    project_id: str | None = None
    ready: bool = False
    limit: int = 50
    outside_projects: bool = False
    free_for: str | None = None


def select(conn: sqlite3.Connection, query: TaskQuery) -> list[JSONObject]:
    """Tasks matching ``query``, the most urgent first (``ready``: pending, no open blocker)."""
    where, params = ["1 = 1"], []
    if query.status is not None:
        where.append("status = ?")
        params.append(query.status)
    if query.project_id is not None:
        where.append("project_id = ?")
        params.append(query.project_id)
    if query.outside_projects:
        where.append("project_id IS NULL")
    if query.ready:
        where.append("status = 'pending'")
        where.append(NO_OPEN_BLOCKER)
    if query.free_for is not None:
        where.append(NOT_HANDED_TO_ANOTHER)
        params.append(query.free_for)
    rows = conn.execute(
        f"SELECT * FROM tasks WHERE {' AND '.join(where)}{PICK_ORDER} LIMIT ?",
        (*params, query.limit),
    ).fetchall()
    return to_dicts(rows)


def status_counts(conn: sqlite3.Connection, project_id: str | None = None) -> dict[str, int]:
    counts = {"pending": 0, "in_progress": 0, "completed": 0, "blocked": 0}
    sql = "SELECT status, COUNT(*) FROM tasks"
    rows = (
        conn.execute(sql + " WHERE project_id = ? GROUP BY status", (project_id,))
        if project_id
        else conn.execute(sql + " GROUP BY status")
    )
    for status, n in rows:
        counts[status] = n
    return counts


def set_status(
    conn: sqlite3.Connection, task_id: str, status: str, blocked_reason: str | None, at: str
) -> JSONObject:
    """Change the status; leaving in_progress releases the claim."""
    row = conn.execute(
        "UPDATE tasks SET status = ?, blocked_reason = ?, version = version + 1, updated_at = ?,"
        " claimed_by = CASE WHEN ? = 'in_progress' THEN claimed_by ELSE NULL END,"
        " lease_expires_at = CASE WHEN ? = 'in_progress' THEN lease_expires_at ELSE NULL END"
        " WHERE id = ? RETURNING *",
        (status, blocked_reason and privacy.scrub(blocked_reason), at, status, status, task_id),
    ).fetchone()
    return to_dict(row)  # type: ignore[return-value]


# A lease's new end: never earlier than a live end it had (a heartbeat with a shorter
# --lease, or from a clock that is behind, would hand the task to another agent while its
# holder works); an end past the bound was set by a clock that was ahead and is replaced.
LATER_END = (
    "lease_expires_at = CASE WHEN lease_expires_at > ? AND lease_expires_at <= ?"
    " THEN lease_expires_at ELSE ? END"
)


def _later_end(lease_until: str, at: str) -> tuple[str, str, str]:
    return (lease_until, lease_bound(at), lease_until)


def claim(
    conn: sqlite3.Connection, task_id: str, agent: str, lease_until: str, at: str
) -> JSONObject:
    """Take the task (the holder's own claim again keeps its epoch) with the lease ending at
    ``lease_until``, or later where the holder's live lease ends later (LATER_END)."""
    row = conn.execute(
        "UPDATE tasks SET status = 'in_progress', blocked_reason = NULL, claimed_by = ?,"
        " claim_epoch = claim_epoch + CASE WHEN claimed_by IS ? THEN 0 ELSE 1 END,"
        f" {LATER_END}, version = version + 1, updated_at = ?"
        " WHERE id = ? RETURNING *",
        (agent, agent, *_later_end(lease_until, at), at, task_id),
    ).fetchone()
    return to_dict(row)  # type: ignore[return-value]


def renew_lease(conn: sqlite3.Connection, task_id: str, lease_until: str, at: str) -> JSONObject:
    """Renew a held claim's lease to end at ``lease_until``, or later where its live lease
    ends later (LATER_END); leaves status alone so tasks_pick is not rewritten."""
    row = conn.execute(
        f"UPDATE tasks SET {LATER_END}, version = version + 1, updated_at = ?"
        " WHERE id = ? RETURNING *",
        (*_later_end(lease_until, at), at, task_id),
    ).fetchone()
    return to_dict(row)  # type: ignore[return-value]


def lease_bound(at: str) -> str:
    """The latest end a live lease can have, read at ``at``: a lease ending later was set by
    a clock that was ahead (by more than a lease can last) and holds nothing."""
    return clock.iso(clock.after(clock.parse_iso(at), clock.MAX_LEASE))


def lease_holds(task: JSONObject, at: str) -> bool:
    """Whether the task's lease is live at ``at``: it ends after ``at`` and within the bound."""
    ends = task["lease_expires_at"] or ""
    return at < ends <= lease_bound(at)


def next_claimable(
    conn: sqlite3.Connection, agent: str, project_id: str | None, at: str
) -> str | None:
    """The best task for ``agent`` to claim: ready, or in progress with nobody holding a live
    lease (an expired claim, its own included, a lease past the bound, or a task set in
    progress by hand); never one handed off to another agent."""
    sql = (
        "SELECT id FROM tasks WHERE ("
        " status = 'pending'"
        " OR (status = 'in_progress' AND (claimed_by IS NULL OR lease_expires_at IS NULL"
        "     OR lease_expires_at < ? OR lease_expires_at > ?)))"
        f" AND {NO_OPEN_BLOCKER} AND {NOT_HANDED_TO_ANOTHER}"
    )
    params: list[Any] = [at, lease_bound(at), agent]
    if project_id is not None:
        sql += " AND project_id = ?"
        params.append(project_id)
    sql += PICK_ORDER + " LIMIT 1" + SKIP_LOCKED
    row = conn.execute(sql, params).fetchone()
    return row[0] if row else None


def open_blockers(conn: sqlite3.Connection, task_id: str) -> list[JSONObject]:
    rows = conn.execute(
        "SELECT b.id, b.title, b.status FROM task_dependencies d"
        " JOIN tasks b ON b.id = d.depends_on_task_id"
        " WHERE d.task_id = ? AND b.status <> 'completed' ORDER BY b.created_at, b.id",
        (task_id,),
    ).fetchall()
    return to_dicts(rows, ())


def dependencies(conn: sqlite3.Connection, task_id: str) -> dict[str, list[str]]:
    on = [
        r[0]
        for r in conn.execute(
            "SELECT depends_on_task_id FROM task_dependencies WHERE task_id = ? ORDER BY 1",
            (task_id,),
        )
    ]
    blocks = [
        r[0]
        for r in conn.execute(
            "SELECT task_id FROM task_dependencies WHERE depends_on_task_id = ? ORDER BY 1",
            (task_id,),
        )
    ]
    return {"depends_on": on, "blocks": blocks}


def reaches(conn: sqlite3.Connection, start: str, target: str) -> bool:
    """Whether ``target`` is ``start`` or one of the tasks ``start`` depends on, transitively."""
    row = conn.execute(
        "WITH RECURSIVE reach(id) AS (SELECT ? UNION SELECT d.depends_on_task_id"
        " FROM task_dependencies d JOIN reach r ON d.task_id = r.id)"
        " SELECT 1 FROM reach WHERE id = ? LIMIT 1",
        (start, target),
    ).fetchone()
    return row is not None


def add_dependency(conn: sqlite3.Connection, task_id: str, on: str, at: str) -> bool:
    cursor = conn.execute(
        "INSERT INTO task_dependencies (task_id, depends_on_task_id, created_at)"
        " VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        (task_id, on, at),
    )
    return cursor.rowcount == 1


def remove_dependency(conn: sqlite3.Connection, task_id: str, on: str) -> bool:
    cursor = conn.execute(
        "DELETE FROM task_dependencies WHERE task_id = ? AND depends_on_task_id = ?",
        (task_id, on),
    )
    return cursor.rowcount == 1


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0])


def find_open_by_metadata(
    conn: sqlite3.Connection, fields: dict[str, str], project_id: str | None
) -> JSONObject | None:
    """The oldest task not completed whose metadata holds every one of ``fields``, in
    ``project_id`` or in no project (LIKE narrows, JSON decides)."""
    rows = conn.execute(
        "SELECT * FROM tasks WHERE status <> 'completed' AND metadata LIKE ?"
        " AND (project_id IS NULL OR project_id = ?) ORDER BY created_at, id",
        (f"%{next(iter(fields.values()))}%", project_id),
    ).fetchall()
    for task in to_dicts(rows):
        meta = task["metadata"]
        if isinstance(meta, dict) and all(meta.get(k) == v for k, v in fields.items()):
            return task
    return None
