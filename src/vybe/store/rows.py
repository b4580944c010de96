"""Turning rows into the plain dicts the envelope carries."""

from __future__ import annotations

import sqlite3

from vybe import jsonio

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any


def to_dict(
    row: sqlite3.Row | None,
    json_fields: tuple[str, ...] = ("metadata",),
    flags: tuple[str, ...] = (),
) -> dict | None:
    """A row as a dict: ``json_fields`` parsed, ``flags`` (SQLite's 0/1) as booleans."""
    if row is None:
        return None
    data: dict[str, Any] = dict(row)
    for name in json_fields:
        if data.get(name):
            data[name] = jsonio.loads(data[name])
    for name in flags:
        data[name] = bool(data[name])
    return data


def to_dicts(
    rows: list[sqlite3.Row],
    json_fields: tuple[str, ...] = ("metadata",),
    flags: tuple[str, ...] = (),
) -> list[dict]:
    return [to_dict(r, json_fields, flags) for r in rows]  # type: ignore[misc]
