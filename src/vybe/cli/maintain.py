"""maintain: one bounded round of housekeeping (also run by the hooks)."""

from __future__ import annotations

from typing import Any

from vybe.actions import maintain as maintenance
from vybe.cli import types
from vybe.cli.registry import Registry

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse

count = types.bounded_int(0, 100_000)


def maintain(inv: Any, args: argparse.Namespace) -> dict:
    options = maintenance.Options(
        gc_limit=args.gc_limit,
        threshold=args.summarize_threshold,
        keep=args.keep,
        max_tasks=args.max_tasks,
        retention=args.retention,
        prune_limit=args.prune_limit,
        checkpoint=not args.no_checkpoint,
    )
    return maintenance.maintain(inv.store, inv.agent, options)


def register(registry: Registry) -> None:
    defaults = maintenance.Options()
    p = registry.command(
        "maintain",
        maintain,
        "Memory gc, fold long task logs into summaries, prune old archived events, checkpoint.",
        mutates=True,
    )
    p.add_argument("--gc-limit", type=count, default=defaults.gc_limit)
    p.add_argument(
        "--summarize-threshold",
        type=types.bounded_int(2, 100_000),
        default=defaults.threshold,
        help="fold a task's log once it has more live events than this",
    )
    p.add_argument("--keep", type=count, default=defaults.keep, help="newest events kept live")
    p.add_argument("--max-tasks", type=count, default=defaults.max_tasks, help="tasks per call")
    p.add_argument("--retention", type=types.duration, default=defaults.retention)
    p.add_argument("--prune-limit", type=count, default=defaults.prune_limit)
    p.add_argument("--no-checkpoint", action="store_true", help="skip the WAL checkpoint")
