"""Turning rows into the plain dicts the envelope carries."""

from __future__ import annotations

import math
import sqlite3

from vybe import jsonio
from vybe.errors import InvalidInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject


def strict_json(value: Any) -> str:
    """JSON text of a value the envelope can carry back; anything else is refused, so the
    transaction writing it rolls back (a cursor never moves past a brief it cannot print)."""
    try:
        return jsonio.dumps(value, allow_nan=False)
    except ValueError:
        raise InvalidInput(
            "the result holds a number JSON cannot carry (NaN or Infinity)",
            suggested_action="store numbers like this as strings",
        ) from None


def stored_json(text: str) -> Any:
    """A JSON column as its value; what strict JSON cannot carry comes back as text (an older
    vybe stored Infinity and NaN; a number past int()'s digit limit stays the stored text),
    so a read never fails on what a write once accepted."""
    try:
        return jsonio.loads(text, parse_constant=str, parse_float=_finite_or_text)
    except (ValueError, RecursionError):
        return text


def _finite_or_text(text: str) -> float | str:
    value = float(text)
    return value if math.isfinite(value) else ("Infinity" if value > 0 else "-Infinity")


def to_dict(
    row: sqlite3.Row | None,
    json_fields: tuple[str, ...] = ("metadata",),
    flags: tuple[str, ...] = (),
) -> JSONObject | None:
    """A row as a dict: ``json_fields`` parsed, ``flags`` (SQLite's 0/1) as booleans."""
    if row is None:
        return None
    return _converted(dict(row), json_fields, flags)


def _converted(
    data: dict[str, Any], json_fields: tuple[str, ...], flags: tuple[str, ...]
) -> JSONObject:
    for name in json_fields:
        if data.get(name):
            data[name] = stored_json(data[name])
    for name in flags:
        data[name] = bool(data[name])
    return data


def to_dicts(
    rows: list[sqlite3.Row],
    json_fields: tuple[str, ...] = ("metadata",),
    flags: tuple[str, ...] = (),
) -> list[JSONObject]:
    """``to_dict`` of each row. The column names are read once for all of them: ``dict(row)``
    looks each name up again along the row's columns, for every row."""
    if not rows:
        return []
    keys = rows[0].keys()
    if len(set(keys)) != len(rows[0]):  # a name twice: dict(row) keeps the first one's value
        return [to_dict(r, json_fields, flags) for r in rows]  # type: ignore[misc]
    return [_converted(dict(zip(keys, r, strict=True)), json_fields, flags) for r in rows]
