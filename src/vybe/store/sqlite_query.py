"""`vybe data query` on a SQLite store: one read-only statement in a sandbox (an authorizer
that lets it only read, a read-only connection, a value and heap limit, a deadline), its
rows bounded in number and bytes. Its PostgreSQL twin is vybe.store.pg_query."""

from __future__ import annotations

import math
import os
import sqlite3

from vybe import jsonio
from vybe.errors import ReadOnlyViolation, VybeError
from vybe.store.db import require_database, translate
from vybe.store.deadline import Deadline

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

QUERY_HINT = "check the SQL; tables: messages, checkpoints, checkpoint_attempts"
READ_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "user_version",
        "schema_version",
        "page_count",
        "page_size",
    }
)
_READ_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)


def _reads_only(action: int, first: str | None, second: str | None, *_: object) -> int:
    """An authorizer that lets a statement read and nothing else: no ATTACH, no VACUUM INTO."""
    if action in _READ_ACTIONS or (action == sqlite3.SQLITE_PRAGMA and first in READ_PRAGMAS):
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def open_readonly(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A connection that cannot write or create files, for ad-hoc queries over the record."""
    from urllib.parse import quote

    require_database(path)
    uri = "file:" + quote(os.path.abspath(path)) + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        conn.execute("PRAGMA query_only=1")
    except sqlite3.Error as exc:
        raise translate(exc, os.fspath(path)) from None
    conn.set_authorizer(_reads_only)
    conn.row_factory = sqlite3.Row
    return conn


def _plain(value: object) -> object:
    """A value JSON can carry: blobs as hex, non-finite floats as text."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _too_long(row: Any, max_bytes: int) -> bool:
    """A value alone longer than the output's bytes: the row cannot fit (and is not made JSON)."""
    return any(isinstance(v, (str, bytes)) and len(v) > max_bytes for v in row)


def bounded_rows(
    cursor: Any, names: list[str], limit: int, max_bytes: int, plain: Any
) -> tuple[list[dict[str, Any]], bool]:
    """At most ``limit`` rows of ``cursor`` and ``max_bytes`` of their JSON, each value made
    ``plain``, and whether any were left out."""
    rows: list[dict[str, Any]] = []
    size = 0
    for row in cursor:
        if len(rows) == limit or _too_long(row, max_bytes):
            return rows, True
        item = dict(zip(names, map(plain, row), strict=True))
        size += len(jsonio.dumps(item, default=str))
        if size > max_bytes:
            return rows, True
        rows.append(item)
    return rows, False


# What one ad-hoc query may hold: a value (string or blob, SQLite's SQLITE_LIMIT_LENGTH) and
# all of SQLite's memory in this process (its hard heap limit). Without them one expression
# (zeroblob(1e9), printf('%.*c', 1e9, 'x'), a string doubled by a recursive CTE) took
# gigabytes and ran past the time limit, which is checked only between SQLite's steps.
VALUE_MAX = 32 << 20
HEAP_MAX = 256 << 20


def _hard_heap_setter() -> Any:
    """``sqlite3_hard_heap_limit64`` of the very library the sqlite3 module runs (looked up
    through its extension module, which links or embeds it), or None where it is hidden."""
    import ctypes
    import sys

    try:
        function = ctypes.CDLL(sys.modules["_sqlite3"].__file__).sqlite3_hard_heap_limit64
    except (OSError, AttributeError, KeyError, TypeError):
        return None
    function.restype, function.argtypes = ctypes.c_int64, [ctypes.c_int64]
    return function


def _lower_heap_limit(limit: int) -> Callable[[], None]:
    """Set SQLite's hard heap limit to ``limit`` bytes (or keep a lower one already set);
    what puts it back. The limit is the process's and SQL may only lower it, so it is put
    back through SQLite's C interface; where that is hidden it stays lowered for the rest of
    the process (a command's process ends with its query)."""
    setter = _hard_heap_setter()
    if setter is None:
        pragma = sqlite3.connect(":memory:")
        pragma.execute(f"PRAGMA hard_heap_limit = {int(limit)}")
        pragma.close()
        return lambda: None
    before = setter(limit)
    if 0 < before < limit:
        setter(before)
    return lambda: setter(before)


def _too_large() -> VybeError:
    return VybeError(
        f"the query built a value over {VALUE_MAX >> 20} MiB or needed more than"
        f" {HEAP_MAX >> 20} MiB of memory and was stopped",
        code="QUERY_TOO_LARGE",
        context={"value_max_bytes": VALUE_MAX, "memory_max_bytes": HEAP_MAX},
        suggested_action="aggregate (count, length, substr) instead of building large values",
    )


def query_readonly(
    conn: sqlite3.Connection, sql: str, limit: int, max_bytes: int, seconds: float
) -> tuple[list[dict[str, Any]], bool]:
    """The rows of one read-only statement, at most ``limit`` of them and ``max_bytes`` of
    JSON, and whether any were left out. Past ``seconds`` it is QUERY_TIMEOUT, past
    VALUE_MAX or HEAP_MAX QUERY_TOO_LARGE; a Ctrl-C while SQLite runs stops it and comes
    back as KeyboardInterrupt."""
    stop = Deadline(seconds)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_MAX)
    conn.set_progress_handler(stop, 10_000)
    put_back = _lower_heap_limit(HEAP_MAX)
    try:
        cursor = conn.execute(sql)
        names = [column[0] for column in cursor.description or ()]
        return bounded_rows(cursor, names, limit, max_bytes, _plain)
    except MemoryError:
        raise _too_large() from None
    except sqlite3.Error as exc:
        stop.explain(exc)
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_TOOBIG":
            raise _too_large() from None
        text = str(exc).lower()
        if any(word in text for word in ("readonly", "read-only", "query_only", "authoriz")):
            raise ReadOnlyViolation(
                "this query would write; vybe data query only reads",
                suggested_action="use a SELECT statement",
            ) from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
        put_back()
