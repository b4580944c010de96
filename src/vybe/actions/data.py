"""vybe data query: one read-only statement, bounded in time, rows and bytes.

A recursive CTE ran until killed and one query printed 200 MB: the statement is stopped
past its time limit (QUERY_TIMEOUT), or by Ctrl-C (KeyboardInterrupt, the CLI's
INTERRUPTED), and the rows are cut at the row or byte limit with ``truncated`` set."""

from __future__ import annotations

import json
import sqlite3

from vybe import limits
from vybe.errors import InvalidInput
from vybe.store import is_url
from vybe.store.sqlite_query import QUERY_HINT, open_readonly, query_readonly
from vybe.text import shorten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

ROWS_MAX = 10_000
BYTES_MAX = 1_000_000
SECONDS = 10.0
SQL_MAX = 100_000


def query(
    db_path: str,
    sql: str,
    limit: int,
    *,
    max_bytes: int = BYTES_MAX,
    seconds: float = SECONDS,
    busy_timeout_ms: int = 5000,
) -> JSONObject:
    """``db_path`` is the SQLite file or a PostgreSQL URL (the server bounds the time)."""
    limits.text("sql", sql, SQL_MAX, required=True)
    limits.integer("limit", limit, 1, ROWS_MAX)
    if is_url(db_path):
        from vybe.store.pg_query import read_query

        rows, truncated = read_query(db_path, sql, limit, max_bytes, seconds, busy_timeout_ms)
        return {"rows": rows, "count": len(rows), "truncated": truncated}
    conn = open_readonly(db_path)
    try:
        rows, truncated = query_readonly(conn, sql, limit, max_bytes, seconds)
    except sqlite3.Error as exc:
        raise InvalidInput(
            f"the query failed: {exc}",
            context={"sql": shorten(sql, 500)},
            suggested_action=QUERY_HINT,
        ) from None
    finally:
        conn.close()
    return {"rows": rows, "count": len(rows), "truncated": truncated}


def _cell(value: object) -> str:
    """One value on one line: NULL empty, text with its tabs and line breaks escaped."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def as_text(result: JSONObject) -> str:
    """``--format text``: a header of the columns, then one tab-separated line per row
    (the rows of a query have the columns of its first row)."""
    rows = result["rows"]
    if not rows:
        return "(no rows)"
    columns = list(rows[0])
    lines = ["\t".join(columns)]
    lines += ["\t".join(_cell(row.get(c)) for c in columns) for row in rows]
    if result["truncated"]:
        lines.append(f"(cut at {result['count']} rows: raise --limit or narrow the query)")
    return "\n".join(lines)
