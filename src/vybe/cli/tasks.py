"""task …, done, block, note."""

from __future__ import annotations

from datetime import timedelta

from vybe.actions import tasks
from vybe.cli import types
from vybe.cli.registry import Registry
from vybe.errors import UsageError
from vybe.store.tasks import TaskQuery

FORCE_HELP = "despite open blockers or another agent's live claim"

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse
    from typing import Any


def _lease(inv: Any, args: argparse.Namespace) -> timedelta:
    return args.lease or types.duration(inv.settings.claim_lease)


def create(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.create(
        inv.store,
        inv.agent,
        inv.request_id,
        title=args.title,
        description=args.desc,
        priority=args.priority,
        project_id=args.project_id,
        metadata=args.metadata,
    )


def begin(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.begin(
        inv.store, inv.agent, inv.request_id, task_id=args.id, lease=_lease(inv, args)
    )


def get(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.get(inv.store, args.id)


def list_(inv: Any, args: argparse.Namespace) -> dict:
    query = TaskQuery(
        status=args.status, project_id=args.project_id, ready=args.ready, limit=args.limit
    )
    return tasks.list_tasks(inv.store, query)


def set_status(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.set_status(
        inv.store,
        inv.agent,
        inv.request_id,
        task_id=args.id,
        status=args.status,
        blocked_reason=args.blocked_reason,
        force=args.force,
    )


def depend(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.depend(inv.store, inv.agent, inv.request_id, task_id=args.id, on=args.on)


def undepend(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.undepend(inv.store, inv.agent, inv.request_id, task_id=args.id, on=args.on)


def claim(inv: Any, args: argparse.Namespace) -> dict:
    if bool(args.id) == bool(args.next):
        raise UsageError("task claim needs exactly one of --id or --next")
    return tasks.claim(
        inv.store,
        inv.agent,
        inv.request_id,
        task_id=args.id,
        project_id=args.project_id,
        lease=_lease(inv, args),
    )


def heartbeat(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.heartbeat(
        inv.store, inv.agent, inv.request_id, task_id=args.id, lease=_lease(inv, args)
    )


def assign(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.assign(
        inv.store, inv.agent, inv.request_id, task_id=args.id, to=args.to, note=args.note
    )


def done(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.done(
        inv.store, inv.agent, inv.request_id, task_id=args.task_id, note=args.note, force=args.force
    )


def block(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.block(
        inv.store,
        inv.agent,
        inv.request_id,
        task_id=args.task_id,
        reason=args.reason,
        failure=args.failure,
    )


def note(inv: Any, args: argparse.Namespace) -> dict:
    return tasks.note(
        inv.store,
        inv.agent,
        inv.request_id,
        task_id=args.task_id,
        message=args.message,
        kind=args.kind,
    )


def register(registry: Registry) -> None:
    registry.group("task", "Create, start, claim, close and link tasks.")
    p = registry.command("task create", create, "Create a pending task.", mutates=True)
    p.add_argument("--title", required=True)
    p.add_argument("--desc", default="", help="description")
    p.add_argument("--priority", type=types.priority, default=0, help="higher is more urgent")
    p.add_argument("--project-id")
    p.add_argument("--metadata", help="a JSON object")

    p = registry.command(
        "task begin", begin, "Claim a task, set it in progress and make it the focus.", mutates=True
    )
    p.add_argument("--id", required=True)
    p.add_argument("--lease", type=types.duration, help="claim lease, e.g. 15m (config default)")

    registry.command(
        "task get", get, "A task with its dependencies and open blockers."
    ).add_argument("--id", required=True)

    p = registry.command("task list", list_, "Tasks by priority, then age.")
    p.add_argument("--status", choices=tasks.STATUSES)
    p.add_argument("--project-id")
    p.add_argument("--ready", action="store_true", help="only pending tasks with no open blocker")
    p.add_argument("--limit", type=types.limit, default=20)

    p = registry.command("task set-status", set_status, "Set a task's status.", mutates=True)
    p.add_argument("--id", required=True)
    p.add_argument("--status", required=True, choices=tasks.STATUSES)
    p.add_argument("--blocked-reason")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)

    for name, handler, help_ in (
        ("task depend", depend, "Make --id wait for --on (cycles are refused)."),
        ("task undepend", undepend, "Remove the dependency of --id on --on."),
    ):
        p = registry.command(name, handler, help_, mutates=True)
        p.add_argument("--id", required=True)
        p.add_argument("--on", required=True)

    p = registry.command(
        "task claim",
        claim,
        "Claim a task (--id) or the best ready one (--next) under a lease.",
        mutates=True,
    )
    p.add_argument("--id")
    p.add_argument("--next", action="store_true")
    p.add_argument("--project-id", help="with --next: only this project's tasks")
    p.add_argument("--lease", type=types.duration, help="e.g. 15m (config default)")

    p = registry.command("task heartbeat", heartbeat, "Extend this agent's claim.", mutates=True)
    p.add_argument("--id", required=True)
    p.add_argument("--lease", type=types.duration)

    p = registry.command("task assign", assign, "Hand a task to another agent.", mutates=True)
    p.add_argument("--id", required=True)
    p.add_argument("--to", required=True, help="the receiving agent")
    p.add_argument("--note", default="")

    p = registry.command("done", done, "Complete a task, with a note.", mutates=True)
    p.add_argument("task_id")
    p.add_argument("--note", default="")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)

    p = registry.command("block", block, "Block a task with a reason.", mutates=True)
    p.add_argument("task_id")
    p.add_argument("--reason", required=True)
    p.add_argument("--failure", action="store_true", help="a failure: resume will skip it")

    p = registry.command("note", note, "Log progress on a task.", mutates=True)
    p.add_argument("task_id")
    p.add_argument("message")
    p.add_argument("--kind", default="progress")
