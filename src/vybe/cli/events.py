"""events, artifacts, push."""

from __future__ import annotations

import sys
from typing import Any

from vybe.actions import events, limits
from vybe.actions import push as push_action
from vybe.cli import types
from vybe.cli.registry import Registry
from vybe.store.events import EventQuery

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse


def list_(inv: Any, args: argparse.Namespace) -> dict:
    query = EventQuery(
        agent=None if args.all or args.task_id else inv.agent,
        task_id=args.task_id,
        kind=args.kind,
        since_id=args.since,
        limit=args.limit,
        ascending=args.asc,
        include_archived=args.include_archived,
    )
    return events.list_events(inv.store, query)


def artifacts_list(inv: Any, args: argparse.Namespace) -> dict:
    if not args.task_id:
        from vybe.errors import UsageError

        raise UsageError("artifacts needs --task-id (or the subcommand add)")
    return events.list_artifacts(inv.store, args.task_id, args.limit)


def artifacts_add(inv: Any, args: argparse.Namespace) -> dict:
    return events.add_artifact(
        inv.store,
        inv.agent,
        inv.request_id,
        task_id=args.task_id,
        file_path=args.path,
        content_type=args.content_type,
    )


def _read_stdin() -> str:
    from vybe.errors import InvalidInput

    try:
        raw = sys.stdin.buffer.read(limits.JSON_DOCUMENT_MAX * 4 + 1)
    except (AttributeError, OSError, ValueError):  # stdin closed, or not readable
        raise InvalidInput("--json - needs the document on stdin, which is closed") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("--json on stdin is not UTF-8", context={"field": "--json"}) from None


def push(inv: Any, args: argparse.Namespace) -> dict:
    text = _read_stdin() if args.json == "-" else args.json
    document = limits.json_document("--json", text)
    return push_action.push(inv.store, inv.agent, inv.request_id, document=document)


def register(registry: Registry) -> None:
    p = registry.command("events", list_, "Read the event log (newest first by default).")
    p.add_argument("--all", action="store_true", help="every agent's events, not only mine")
    p.add_argument("--task-id")
    p.add_argument("--kind")
    p.add_argument(
        "--since", type=types.bounded_int(0, 2**62), default=0, help="only events after this id"
    )
    p.add_argument("--limit", type=types.limit, default=50)
    p.add_argument("--asc", action="store_true", help="oldest first")
    p.add_argument("--include-archived", action="store_true")

    p = registry.group("artifacts", "List a task's artifacts (or `artifacts add`).", artifacts_list)
    p.add_argument("--task-id")
    p.add_argument("--limit", type=types.limit, default=50)
    p = registry.command("artifacts add", artifacts_add, "Link a file to a task.", mutates=True)
    p.add_argument("--task-id", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--content-type")

    p = registry.command(
        "push",
        push,
        "Atomic batch: event + artifacts + task status in one transaction (--json '{...}' or -).",
        mutates=True,
    )
    p.add_argument("--json", required=True, help="the document, or - to read stdin")
