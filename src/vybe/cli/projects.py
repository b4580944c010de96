"""project create|get|list|focus|delete."""

from __future__ import annotations

from typing import Any

from vybe.actions import projects
from vybe.cli import types
from vybe.cli.registry import Registry

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse


def create(inv: Any, args: argparse.Namespace) -> dict:
    return projects.create(
        inv.store,
        inv.agent,
        inv.request_id,
        name=args.name,
        project_id=args.id,
        metadata=args.metadata,
    )


def get(inv: Any, args: argparse.Namespace) -> dict:
    return projects.get(inv.store, args.id)


def list_(inv: Any, args: argparse.Namespace) -> dict:
    return projects.list_projects(inv.store, args.limit)


def focus(inv: Any, args: argparse.Namespace) -> dict:
    return projects.focus(
        inv.store, inv.agent, inv.request_id, project_id=None if args.clear else args.id
    )


def delete(inv: Any, args: argparse.Namespace) -> dict:
    return projects.delete(inv.store, inv.agent, inv.request_id, project_id=args.id)


def register(registry: Registry) -> None:
    registry.group("project", "Projects group tasks, memory and events.")
    p = registry.command(
        "project create", create, "Create a project (existing id: returned).", mutates=True
    )
    p.add_argument("--name", required=True)
    p.add_argument("--id", help="e.g. the project's folder; generated when absent")
    p.add_argument("--metadata", help="a JSON object")
    registry.command("project get", get, "One project.").add_argument("--id", required=True)
    registry.command("project list", list_, "All projects.").add_argument(
        "--limit", type=types.limit, default=100
    )
    p = registry.command("project focus", focus, "Set this agent's project.", mutates=True)
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--id")
    group.add_argument("--clear", action="store_true")
    registry.command(
        "project delete", delete, "Delete a project; its tasks stay.", mutates=True
    ).add_argument("--id", required=True)
