"""vybe data query: read the record (and every other table) over a read-only connection."""

from __future__ import annotations

import sqlite3
from typing import Any

from vybe.cli import types
from vybe.cli.registry import Registry

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse

MAX_LIMIT = 10_000


def query(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.errors import InvalidInput
    from vybe.store.db import open_readonly, query_readonly

    inv.store  # noqa: B018 - opening the store applies pending migrations first
    conn = open_readonly(inv.settings.db_path)
    try:
        rows = query_readonly(conn, args.sql, args.limit + 1)
    except sqlite3.Error as exc:
        raise InvalidInput(
            f"the query failed: {exc}",
            context={"sql": args.sql},
            suggested_action="check the SQL; tables: messages, checkpoints, checkpoint_attempts",
        ) from None
    finally:
        conn.close()
    return {
        "rows": rows[: args.limit],
        "count": min(len(rows), args.limit),
        "truncated": len(rows) > args.limit,
    }


def register(registry: Registry) -> None:
    registry.group("data", "Read the database directly.")
    p = registry.command(
        "data query", query, "Run one read-only SQL statement; writes are refused."
    )
    p.add_argument("--sql", required=True, help="one SQL statement, e.g. a SELECT over messages")
    p.add_argument("--limit", type=types.bounded_int(1, MAX_LIMIT), default=100)
