"""vybe data query: read the record (and every other table) over a read-only connection."""

from __future__ import annotations

from typing import Any

from vybe.cli import types
from vybe.cli.registry import Registry

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse

MAX_LIMIT = 10_000  # vybe.actions.data.ROWS_MAX


def query(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.actions import data

    inv.store  # noqa: B018 - opening the store applies pending migrations first
    return data.query(inv.settings.db_path, args.sql, args.limit)


def register(registry: Registry) -> None:
    registry.group("data", "Read the database directly.")
    p = registry.command(
        "data query", query, "Run one read-only SQL statement; writes are refused."
    )
    p.add_argument("--sql", required=True, help="one SQL statement, e.g. a SELECT over messages")
    p.add_argument("--limit", type=types.bounded_int(1, MAX_LIMIT), default=100)
