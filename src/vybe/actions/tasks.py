"""Tasks: create, begin, claim, close, block, depend, hand off."""

from __future__ import annotations

import os
import sqlite3
from datetime import timedelta

from vybe import clock, limits
from vybe.errors import (
    AlreadyClaimed,
    BlockedByDependency,
    InvalidInput,
    NotFound,
    VybeError,
    listed,
)
from vybe.store import SERIAL, Store
from vybe.store import agents as agent_rows
from vybe.store import events as event_rows
from vybe.store import handoffs as handoff_rows
from vybe.store import projects as project_rows
from vybe.store import tasks as task_rows

TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from typing import Any

STATUSES = ("pending", "in_progress", "completed", "blocked")
FAILURE_PREFIX = "failure:"


# The keys in a task's metadata that link it to an agent's own task (Claude's TaskCompleted):
# Claude's task ids restart at "1" in every session, so a link names the session too.
LINK_KEY = "claude_task_id"
LINK_SESSION_KEY = "claude_session_id"


def link_session(metadata: Any, session_id: str | None) -> Any:
    """Metadata linking a Claude task (``claude_task_id``) made inside a Claude session names
    that session when it does not say one: Claude's task "1" of another session is not it."""
    if not session_id or not isinstance(metadata, dict) or LINK_KEY not in metadata:
        return metadata
    return {LINK_SESSION_KEY: session_id, **metadata}


def require_task(conn: sqlite3.Connection, task_id: str) -> dict:
    return listed(task_rows.get(conn, task_id), "task", task_id)


def _event(
    conn: sqlite3.Connection, task: dict, kind: str, agent: str, message: str = "", **extra: Any
) -> int:
    return event_rows.insert(
        conn,
        event_rows.NewEvent(
            kind=kind,
            agent=agent,
            message=message,
            task_id=task["id"],
            project_id=task["project_id"],
            **extra,
        ),
        clock.now_iso(),
    )


def _refuse_open_blockers(conn: sqlite3.Connection, task_id: str, doing: str) -> None:
    blockers = task_rows.open_blockers(conn, task_id)
    if blockers:
        raise BlockedByDependency(
            f"task {task_id} cannot be {doing}: {len(blockers)} task(s) it depends on are open",
            context={"task_id": task_id, "open_blockers": blockers},
            suggested_action="finish the blockers first, or pass --force where closing allows it",
        )


def create(
    store: Store,
    agent: str,
    request_id: str,
    *,
    title: str,
    description: str = "",
    priority: int = 0,
    project_id: str | None = None,
    metadata: str | None = None,
    claude_session: str | None = None,
    project_dir: str | None = None,
) -> dict:
    """A new task; metadata linking a Claude task names ``claude_session`` (the Claude
    session the command runs in) when it names none. ``project_dir``: the folder whose
    project (created if new) the task is in, when ``project_id`` names none."""

    here = os.path.abspath(project_dir) if project_id is None and project_dir else None
    project_id = here or project_id

    limits.text("title", title, limits.TITLE_MAX, required=True)
    limits.text("description", description, limits.DESCRIPTION_MAX)
    limits.integer("priority", priority, -limits.PRIORITY_MAX, limits.PRIORITY_MAX)
    meta = link_session(limits.metadata(metadata), claude_session)
    args = {
        "title": title,
        "description": description,
        "priority": priority,
        "project_id": project_id,
        "metadata": meta,
    }

    def run(conn: sqlite3.Connection) -> dict:
        if here is not None:
            project_rows.add_missing(conn, here, os.path.basename(here) or "/", clock.now_iso())
        if project_id is not None and project_rows.get(conn, project_id) is None:
            raise NotFound(
                f"no project {project_id!r}",
                context={"entity": "project", "id": project_id},
                suggested_action="create it with `vybe project create`",
            )
        task = task_rows.insert(
            conn,
            task_rows.NewTask(clock.new_id("task"), title, description, priority, project_id, meta),
            clock.now_iso(),
        )
        event_id = _event(conn, task, "task_created", agent, title)
        return {"task": task, "event_id": event_id}

    return store.idempotent(agent, request_id, "task.create", args, run)


def create_plan(
    store: Store,
    agent: str,
    request_id: str,
    *,
    project_dir: str,
    steps: list[tuple[str, str, bool]],
    metadata: dict,
) -> dict:
    """An approved plan's steps as tasks of the folder's project (created if new), in order,
    each (title, description, after_previous) depending on the one before when it says so;
    once per request id (a plan approved twice replays the first)."""

    project_id = os.path.abspath(project_dir)
    for title, description, _ in steps:
        limits.text("title", title, limits.TITLE_MAX, required=True)
        limits.text("description", description, limits.DESCRIPTION_MAX)
    limits.metadata_value(metadata)

    def run(conn: sqlite3.Connection) -> dict:
        project_rows.add_missing(
            conn, project_id, os.path.basename(project_id) or "/", clock.now_iso()
        )
        made: list[dict] = []
        at = clock.now_iso()
        for step, (title, description, after) in enumerate(steps, 1):
            meta = {**metadata, "plan_step": step, "plan_steps": len(steps)}
            new = task_rows.NewTask(clock.new_id("task"), title, description, 0, project_id, meta)
            task = task_rows.insert(conn, new, at)
            _event(conn, task, "task_created", agent, title)
            if after and made:
                task_rows.add_dependency(conn, task["id"], made[-1]["id"], at)
            made.append(task)
        return {"project_id": project_id, "task_ids": [t["id"] for t in made]}

    args = {"project_id": project_id, "steps": steps, "metadata": metadata}
    return store.idempotent(agent, request_id, "task.create_plan", args, run)


def get(store: Store, task_id: str) -> dict:
    with store.snapshot() as conn:
        task = require_task(conn, task_id)
        return {
            "task": task,
            "dependencies": task_rows.dependencies(conn, task_id),
            "open_blockers": task_rows.open_blockers(conn, task_id),
        }


def list_tasks(store: Store, query: task_rows.TaskQuery) -> dict:
    if query.status is not None and query.status not in STATUSES:
        raise InvalidInput(f"unknown status {query.status!r}", context={"allowed": STATUSES})
    with store.snapshot() as conn:
        tasks = task_rows.select(conn, query)
    return {"count": len(tasks), "tasks": tasks}


def _check_claimable(conn: sqlite3.Connection, task: dict, agent: str, at: str) -> None:
    if task["status"] == "completed":
        raise VybeError(
            f"task {task['id']} is completed",
            code="NOT_CLAIMABLE",
            context={"task_id": task["id"], "status": task["status"]},
        )
    _refuse_live_claim(task, agent, at, "pick another task with `vybe task claim --next`")
    _refuse_open_blockers(conn, task["id"], "started")


def _refuse_live_claim(task: dict, agent: str, at: str, suggested_action: str) -> None:
    """While another agent's lease on a task in progress holds, only that agent acts on it."""
    holder = task["claimed_by"]
    if (
        holder
        and holder != agent
        and task["status"] == "in_progress"
        and task_rows.lease_holds(task, at)
    ):
        raise AlreadyClaimed(
            f"task {task['id']} is claimed by {holder} until {task['lease_expires_at']}",
            context={
                "task_id": task["id"],
                "holder": holder,
                "lease_expires_at": task["lease_expires_at"],
            },
            suggested_action=suggested_action,
        )


def _take(
    conn: sqlite3.Connection,
    task: dict,
    agent: str,
    lease: timedelta,
    kind: str,
    session: str | None,
) -> dict:
    """Claim ``task``; its event names the agent's record session the command ran in, when
    known (a hand-off's span ends at a begin in its own session only)."""
    now = clock.now()
    claimed = task_rows.claim(
        conn, task["id"], agent, clock.iso(clock.after(now, lease)), clock.iso(now)
    )
    agent_rows.set_focus_task(conn, agent, task["id"], clock.iso(now))
    metadata: dict = {"claim_epoch": claimed["claim_epoch"]}
    if session is not None:
        metadata["session_id"] = session
    event_id = _event(conn, claimed, kind, agent, task["title"], metadata=metadata)
    return {"task": claimed, "event_id": event_id}


def begin(
    store: Store,
    agent: str,
    request_id: str,
    *,
    task_id: str,
    lease: timedelta,
    session: str | None = None,
) -> dict:
    """Start work: claim the task for this agent, set it in progress and make it the focus
    (``session``: the agent's record session the command runs in, when known)."""

    def run(conn: sqlite3.Connection) -> dict:
        task = require_task(conn, task_id)
        _check_claimable(conn, task, agent, clock.now_iso())
        return _take(conn, task, agent, lease, "task_started", session)

    return store.idempotent(
        agent, request_id, "task.begin", {"task_id": task_id, "lease": lease.total_seconds()}, run
    )


def claim(
    store: Store,
    agent: str,
    request_id: str,
    *,
    task_id: str | None,
    project_id: str | None,
    lease: timedelta,
    session: str | None = None,
) -> dict:
    """Pick (or take the named task) and claim it in one transaction: one winner."""

    def run(conn: sqlite3.Connection) -> dict:
        at = clock.now_iso()
        if task_id is None:
            chosen = task_rows.next_claimable(conn, agent, project_id, at)
            if chosen is None:
                return {"task": None, "event_id": None}
            task = task_rows.get(conn, chosen)
        else:
            task = require_task(conn, task_id)
        _check_claimable(conn, task, agent, at)  # type: ignore[arg-type]
        return _take(conn, task, agent, lease, "task_claimed", session)  # type: ignore[arg-type]

    args = {"task_id": task_id, "project_id": project_id, "lease": lease.total_seconds()}
    return store.idempotent(agent, request_id, "task.claim", args, run)


def heartbeat(store: Store, agent: str, request_id: str, *, task_id: str, lease: timedelta) -> dict:
    def run(conn: sqlite3.Connection) -> dict:
        task = require_task(conn, task_id)
        if task["claimed_by"] != agent or task["status"] != "in_progress":
            raise VybeError(
                f"task {task_id} is not claimed by {agent}",
                code="NOT_CLAIMED",
                context={"task_id": task_id, "holder": task["claimed_by"]},
                suggested_action="claim it with `vybe task claim --id`",
            )
        now = clock.now()
        renewed = task_rows.renew_lease(
            conn, task_id, clock.iso(clock.after(now, lease)), clock.iso(now)
        )
        return {"task": renewed}

    return store.idempotent(
        agent,
        request_id,
        "task.heartbeat",
        {"task_id": task_id, "lease": lease.total_seconds()},
        run,
    )


def change_status(
    conn: sqlite3.Connection,
    agent: str,
    task: dict,
    status: str,
    blocked_reason: str | None,
    *,
    note: str = "",
    force: bool = False,
) -> dict:
    """The one place a status changes, shared by set-status, done, block and push."""
    if status not in STATUSES:
        raise InvalidInput(f"unknown status {status!r}", context={"allowed": STATUSES})
    if not force:
        _refuse_live_claim(
            task, agent, clock.now_iso(), "leave it to its holder, or pass --force to override"
        )
    if status == "completed" and not force:
        _refuse_open_blockers(conn, task["id"], "closed")
    if status == "in_progress":
        _refuse_open_blockers(conn, task["id"], "started")
    if status != "blocked":
        blocked_reason = None
    updated = task_rows.set_status(conn, task["id"], status, blocked_reason, clock.now_iso())
    kind = {"completed": "task_completed", "blocked": "task_blocked"}.get(status, "task_status")
    message = note or blocked_reason or status
    event_id = _event(
        conn,
        updated,
        kind,
        agent,
        message,
        metadata={"from": task["status"], "to": status, "forced": force},
    )
    if status in ("completed", "blocked"):
        state = agent_rows.get(conn, agent)
        if state and state["focus_task_id"] == task["id"] and status == "completed":
            agent_rows.set_focus_task(conn, agent, None, clock.now_iso())
    return {"task": updated, "event_id": event_id}


def set_status(
    store: Store,
    agent: str,
    request_id: str,
    *,
    task_id: str,
    status: str,
    blocked_reason: str | None = None,
    force: bool = False,
) -> dict:
    if blocked_reason is not None:
        limits.text("blocked_reason", blocked_reason, limits.MESSAGE_MAX)
    args = {"task_id": task_id, "status": status, "blocked_reason": blocked_reason, "force": force}

    def run(conn: sqlite3.Connection) -> dict:
        return change_status(
            conn, agent, require_task(conn, task_id), status, blocked_reason, force=force
        )

    return store.idempotent(agent, request_id, "task.set_status", args, run)


def done(
    store: Store, agent: str, request_id: str, *, task_id: str, note: str = "", force: bool = False
) -> dict:
    limits.text("note", note, limits.MESSAGE_MAX)

    def run(conn: sqlite3.Connection) -> dict:
        return change_status(
            conn, agent, require_task(conn, task_id), "completed", None, note=note, force=force
        )

    return store.idempotent(
        agent, request_id, "done", {"task_id": task_id, "note": note, "force": force}, run
    )


def block(
    store: Store, agent: str, request_id: str, *, task_id: str, reason: str, failure: bool = False
) -> dict:
    limits.text("reason", reason, limits.MESSAGE_MAX - len(FAILURE_PREFIX), required=True)
    stored = FAILURE_PREFIX + reason if failure else reason

    def run(conn: sqlite3.Connection) -> dict:
        return change_status(conn, agent, require_task(conn, task_id), "blocked", stored)

    return store.idempotent(
        agent, request_id, "block", {"task_id": task_id, "reason": reason, "failure": failure}, run
    )


def note(
    store: Store, agent: str, request_id: str, *, task_id: str, message: str, kind: str = "progress"
) -> dict:
    limits.text("message", message, limits.MESSAGE_MAX, required=True)
    limits.text("kind", kind, limits.KIND_MAX, required=True)

    def run(conn: sqlite3.Connection) -> dict:
        task = require_task(conn, task_id)
        return {"event_id": _event(conn, task, kind, agent, message), "task_id": task_id}

    return store.idempotent(
        agent, request_id, "note", {"task_id": task_id, "message": message, "kind": kind}, run
    )


def depend(store: Store, agent: str, request_id: str, *, task_id: str, on: str) -> dict:
    def run(conn: sqlite3.Connection) -> dict:
        task = require_task(conn, task_id)
        require_task(conn, on)
        if task_rows.reaches(conn, on, task_id):
            raise InvalidInput(
                f"{task_id} depending on {on} would make a cycle",
                code="DEPENDENCY_CYCLE",
                context={"task_id": task_id, "on": on},
                suggested_action="remove the opposite dependency first",
            )
        added = task_rows.add_dependency(conn, task_id, on, clock.now_iso())
        event_id = _event(conn, task, "dependency_added", agent, on) if added else None
        return {"task_id": task_id, "depends_on": on, "added": added, "event_id": event_id}

    # The cycle check reads edges another agent may be adding at once (A->B beside B->A).
    args = {"task_id": task_id, "on": on}
    return store.idempotent(agent, request_id, "task.depend", args, run, SERIAL)


def undepend(store: Store, agent: str, request_id: str, *, task_id: str, on: str) -> dict:
    def run(conn: sqlite3.Connection) -> dict:
        task = require_task(conn, task_id)
        require_task(conn, on)
        removed = task_rows.remove_dependency(conn, task_id, on)
        event_id = _event(conn, task, "dependency_removed", agent, on) if removed else None
        return {"task_id": task_id, "depends_on": on, "removed": removed, "event_id": event_id}

    return store.idempotent(agent, request_id, "task.undepend", {"task_id": task_id, "on": on}, run)


def _release_for_handoff(
    conn: sqlite3.Connection, task: dict, agent: str, assignee: str, at: str
) -> dict | None:
    """The task made pending for a hand-off, or None when it need not change."""
    if task["status"] == "completed":
        raise VybeError(
            f"task {task['id']} is completed; reopen it before handing it off",
            code="NOT_CLAIMABLE",
            context={"task_id": task["id"], "status": task["status"]},
            suggested_action="`vybe task set-status --id ID --status pending`, then assign",
        )
    if task["status"] != "in_progress" or task["claimed_by"] == assignee:
        return None
    _refuse_live_claim(task, agent, at, "ask its holder to hand it off, or wait for its lease")
    return task_rows.set_status(conn, task["id"], "pending", None, at)


def _carried(context: dict | None) -> dict | None:
    """What a hand-off's context holds, in counts (the whole is in the receiver's brief)."""
    if context is None:
        return None
    return {
        "session_id": context["session_id"],
        "user_words": len(context["user_words"]),
        "working_state": context["working_state"]["source"],
        "references": len(context["references"]),
    }


def assign(
    store: Store,
    agent: str,
    request_id: str,
    *,
    task_id: str,
    to: str,
    note: str = "",
    context: dict | None = None,
    to_team: str | None = None,
) -> dict:
    """Hand a task to another agent: an event addressed to it, read by its next resume, with
    the ``context`` built from the record (shown in the receiver's brief) when there is one.
    With ``to_team`` (another team of a server store), the task, that event and its context
    become that team's; without it, a hand-off to an agent known only in other teams is
    refused (HANDOFF_CROSSES_TEAMS).

    A task in progress is released first (its claim ends, it is pending again, it leaves the
    sender's focus), since a hand-off is only taken from a pending task; one that another
    agent holds under a live lease is refused."""
    assignee = limits.agent_name(to, "to")
    limits.text("note", note, limits.MESSAGE_MAX)

    def run(conn: sqlite3.Connection) -> dict:
        task = require_task(conn, task_id)
        moving = _team_change(conn, store.dialect, task, assignee, to_team)
        at = clock.now_iso()
        released = _release_for_handoff(conn, task, agent, assignee, at)
        task = released or task
        state = agent_rows.get(conn, agent)
        if state is not None and state["focus_task_id"] == task_id and assignee != agent:
            agent_rows.set_focus_task(conn, agent, None, at)
        event_id = _event(
            conn,
            task,
            "task_assigned",
            agent,
            note or f"assigned to {assignee}",
            assignee_agent=assignee,
            metadata={"released_claim": True} if released is not None else None,
        )
        if context is not None:
            handoff_rows.insert(conn, event_id, task_id, agent, assignee, context, at)
        if moving:
            handoff_rows.carry(conn, task_id, event_id, moving)
        carried = _carried(context)
        handed = {"task_id": task_id, "assignee": assignee, "event_id": event_id}
        return {**handed, "context": carried, "team": moving or task["team"]}

    asked = {"task_id": task_id, "to": assignee, "note": note}
    if to_team is not None:
        asked["to_team"] = to_team
    return store.idempotent(agent, request_id, "task.assign", asked, run)


def _team_change(
    conn: sqlite3.Connection, dialect: str, task: dict, assignee: str, to_team: str | None
) -> str | None:
    """The team the hand-off gives the task to, or None when it stays in its own: an unknown
    ``to_team`` is TEAM_NOT_FOUND, and a receiver known only in other teams, without
    ``to_team``, is HANDOFF_CROSSES_TEAMS (which team is not said: the sender sees none)."""
    if to_team is None or to_team == task["team"]:
        if to_team is None and handoff_rows.known_only_elsewhere(
            conn, dialect, assignee, task["team"]
        ):
            raise VybeError(
                f"{assignee} is an agent of another team, not of {task['team']}",
                code="HANDOFF_CROSSES_TEAMS",
                context={"task_id": task["id"], "to": assignee, "team": task["team"]},
                suggested_action="name the receiver's team: vybe task assign --to-team TEAM",
            )
        return None
    if not handoff_rows.team_exists(conn, dialect, to_team):
        raise NotFound(
            f"no team named {to_team}",
            code="TEAM_NOT_FOUND",
            context={"team": to_team},
            suggested_action="ask the store's owner for the receiving team's name",
        )
    return to_team
