"""Focus selection: the seed's rules in order, never a task with open blockers.

The task actions (vybe.actions.tasks, with the hand-offs' rows) are imported where a rule
needs them: a hook's brief, whose focus is most often kept or picked, does without them."""

from __future__ import annotations

import sqlite3

from vybe.errors import BlockedByDependency
from vybe.store import brief as brief_rows
from vybe.store import tasks as task_rows
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject


class Focus(Row):
    """The chosen task (or none) and the rule that decided."""

    __slots__ = ()
    task: JSONObject | None
    rule: str
    reason: str
    handoff_event_id: int | None = None

    def as_dict(self) -> JSONObject:
        return {
            "focus_task_id": self.task["id"] if self.task else None,
            "focus_rule": self.rule,
            "focus_reason": self.reason,
            "handoff_event_id": self.handoff_event_id,
        }


def _in_scope(task: JSONObject, project_id: str | None) -> bool:
    return project_id is None or task["project_id"] in (None, project_id)


def _usable(conn: sqlite3.Connection, task: JSONObject | None, project_id: str | None) -> bool:
    return (
        task is not None
        and _in_scope(task, project_id)
        and not task_rows.open_blockers(conn, task["id"])
    )


def explicit(conn: sqlite3.Connection, task_id: str) -> Focus:
    from vybe.actions.tasks import require_task

    task = require_task(conn, task_id)
    blockers = task_rows.open_blockers(conn, task_id) if task["status"] != "completed" else []
    if blockers:
        raise BlockedByDependency(
            f"task {task_id} cannot be the focus: {len(blockers)} task(s) it depends on are open",
            context={"task_id": task_id, "open_blockers": blockers},
            suggested_action="focus one of its open blockers instead",
        )
    return Focus(task, "explicit", "focus set with --focus")


def _current(
    conn: sqlite3.Connection, agent: str, state: JSONObject | None, project_id: str | None
) -> Focus | None:
    """Rules 1 and 1.5: keep the current focus, unless another agent has claimed it since."""
    task_id = state.get("focus_task_id") if state else None
    task = task_rows.get(conn, task_id) if task_id else None
    if not _usable(conn, task, project_id):
        return None
    assert task is not None
    if task["claimed_by"] not in (None, agent):
        return None
    if task["status"] == "in_progress":
        return Focus(task, "rule1", "kept the current focus: it is in progress")
    if task["status"] == "blocked":
        from vybe.actions.tasks import FAILURE_PREFIX

        if not (task["blocked_reason"] or "").startswith(FAILURE_PREFIX):
            return Focus(task, "rule1.5", "kept the current focus: blocked, not by a failure")
    return None


def _resumed(
    conn: sqlite3.Connection, state: JSONObject | None, project_id: str | None
) -> Focus | None:
    task_id = state.get("focus_task_id") if state else None
    task = task_rows.get(conn, task_id) if task_id else None
    if _usable(conn, task, project_id) and task["status"] == "pending":  # type: ignore[index]
        return Focus(task, "rule3", "resumed the previous focus: it is pending")
    return None


def _handed_off(conn: sqlite3.Connection, agent: str, project_id: str | None) -> Focus | None:
    """Rule 2: a standing hand-off addressed to this agent: in its project, then of no
    project; with no project, in any (as rule 4 picks from any)."""
    found = brief_rows.handoff(conn, agent, project_id)
    if not found:
        return None
    event_id, task_id = found
    task = task_rows.get(conn, task_id)
    return Focus(task, "rule2", f"took the task handed to {agent}", event_id)


def _first_ready(
    conn: sqlite3.Connection,
    agent: str,
    project_id: str | None = None,
    outside_projects: bool = False,
) -> JSONObject | None:
    """The most urgent ready task of a project, of no project, or (neither given) of any,
    leaving out tasks handed off to another agent."""
    query = task_rows.TaskQuery(
        project_id=project_id,
        ready=True,
        limit=1,
        outside_projects=outside_projects,
        free_for=agent,
    )
    found = task_rows.select(conn, query)
    return found[0] if found else None


def _picked(conn: sqlite3.Connection, agent: str, project_id: str | None) -> Focus:
    """Rule 4 (project first, then tasks of no project), else rule 5."""
    if project_id is not None:
        task = _first_ready(conn, agent, project_id=project_id)
        if task:
            return Focus(task, "rule4", f"highest-priority ready task in project {project_id}")
        task = _first_ready(conn, agent, outside_projects=True)
        if task:
            return Focus(task, "rule4", "highest-priority ready task outside any project")
    else:
        task = _first_ready(conn, agent)
        if task:
            return Focus(task, "rule4", "highest-priority ready task")
    return Focus(None, "rule5", "no ready task")


def decide(
    conn: sqlite3.Connection,
    agent: str,
    state: JSONObject | None,
    project_id: str | None,
    explicit_task_id: str | None = None,
) -> Focus:
    """Apply the rules in the seed's order; the first that holds decides."""
    if explicit_task_id is not None:
        return explicit(conn, explicit_task_id)
    return (
        _current(conn, agent, state, project_id)
        or _handed_off(conn, agent, project_id)
        or _resumed(conn, state, project_id)
        or _picked(conn, agent, project_id)
    )
