"""resume, focus, brief."""

from __future__ import annotations

from vybe.actions import resume as resumes
from vybe.cli import types
from vybe.cli.registry import Registry

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse
    from typing import Any


def resume(inv: Any, args: argparse.Namespace) -> dict:
    options = {"project_dir": args.project_dir, "focus_task_id": args.focus, "limit": args.limit}
    if args.peek:
        return resumes.peek(inv.store, inv.agent, **options)
    return resumes.resume(inv.store, inv.agent, inv.request_id, **options)


def focus(inv: Any, args: argparse.Namespace) -> dict:
    return resumes.current_focus(inv.store, inv.agent, project_dir=args.project_dir)


def brief(inv: Any, args: argparse.Namespace) -> dict:
    data = resumes.peek(
        inv.store, inv.agent, project_dir=args.project_dir, focus_task_id=args.task_id, limit=1
    )
    return {"agent_name": inv.agent, "brief": data["brief"], "prompt": data["prompt"]}


def register(registry: Registry) -> None:
    p = registry.command(
        "resume",
        resume,
        "Events since my cursor, my focus task, the brief and the prompt; moves the cursor.",
        mutates=True,
    )
    p.add_argument("--peek", action="store_true", help="compute everything, write nothing")
    p.add_argument("--focus", metavar="TASK", help="make this task the focus")
    p.add_argument("--project-dir", help="the project (folder) to work in")
    p.add_argument("--limit", type=types.limit, default=resumes.MAX_LIMIT, help="max deltas")

    p = registry.command("focus", focus, "The focus a resume would choose now; moves nothing.")
    p.add_argument("--project-dir")

    p = registry.command("brief", brief, "The brief and prompt, for the focus or --task-id.")
    p.add_argument("--task-id")
    p.add_argument("--project-dir")
