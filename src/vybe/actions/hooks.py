"""What agent hooks change in the store: events of a session, the project, linked tasks."""

from __future__ import annotations

import sqlite3

from vybe import clock
from vybe.actions import limits
from vybe.store import Store
from vybe.store import events as event_rows
from vybe.store import tasks as task_rows
from vybe.text import shorten

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any

# The key in a task's metadata that links it to an agent's own task (Claude's TaskCompleted).
LINK_KEY = "claude_task_id"


def clip(text: str, limit: int) -> str:
    """Cut on a character boundary, saying how much was left out."""
    return shorten(text, limit, f"… [{len(text) - limit} more characters]")


def log_event(
    store: Store,
    agent: str,
    request_id: str,
    *,
    kind: str,
    message: str,
    project_id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict:
    """Append one event once per request id (a retried hook does not log twice)."""
    message = clip(message, limits.MESSAGE_MAX)
    args = {"kind": kind, "message": message, "project_id": project_id, "metadata": metadata}

    def run(conn: sqlite3.Connection) -> dict:
        event = event_rows.NewEvent(kind, agent, message, None, project_id, metadata)
        return {"event_id": event_rows.insert(conn, event, clock.now_iso())}

    return store.idempotent(agent, request_id, "hook.event", args, run)


def complete_linked_task(
    store: Store, agent: str, request_id: str, *, vybe_task_id: str | None, agent_task_id: str
) -> dict:
    """Close the vybe task named by id or linked in its metadata; never the focus by default."""
    from vybe.actions.tasks import change_status

    def run(conn: sqlite3.Connection) -> dict:
        task = task_rows.get(conn, vybe_task_id) if vybe_task_id else None
        if task is None:
            task = task_rows.find_open_by_metadata(conn, LINK_KEY, agent_task_id)
        if task is None or task["status"] == "completed":
            return {"task_id": task["id"] if task else None, "closed": False}
        change_status(conn, agent, task, "completed", None, note=f"{agent} task completed")
        return {"task_id": task["id"], "closed": True}

    args = {"vybe_task_id": vybe_task_id, "agent_task_id": agent_task_id}
    return store.idempotent(agent, request_id, "hook.task_completed", args, run)
