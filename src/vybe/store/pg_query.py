"""vybe data query on a PostgreSQL server: one query that reads vybe's tables and nothing else.

A read-only transaction stops writes, but not what a superuser may read or run beside the
tables: the server's files (pg_read_file, pg_ls_dir, lo_import), a change of role
(set_config('role', ...)). So the query runs inside ``vybe_read_only``, a SECURITY DEFINER
function owned by ``vybe_reader``, a NOLOGIN role that may only SELECT vybe's tables: in
that function the query has the reader's privileges, and PostgreSQL refuses any change of
role or session user there. The store makes the role and the function when it migrates (or
at the first query) if the connecting role may create roles; where it may not, a query is
refused (QUERY_UNAVAILABLE), never run with the connecting role's own privileges.

The query is described first (parsed, not run) for its columns' names and types, which the
call to the function spells out; the server stops it past the time limit (QUERY_TIMEOUT),
its rows are cut at the row limit inside the function and at the byte limit here.
"""

from __future__ import annotations

import math

import psycopg
from psycopg import errors as pg_errors

from vybe.config import redact
from vybe.errors import InvalidInput, ReadOnlyViolation, VybeError
from vybe.store.pg_reader import READER, UNSAFE_READER, arrange
from vybe.store.postgres import _is_gone, _Number, translate
from vybe.store.sqlite_query import QUERY_HINT, bounded_rows
from vybe.text import shorten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The statements that are not queries, refused before they reach the server.
COMMANDS = frozenset(
    (
        "INSERT",
        "UPDATE",
        "DELETE",
        "MERGE",
        "UPSERT",
        "CREATE",
        "DROP",
        "ALTER",
        "TRUNCATE",
        "GRANT",
        "REVOKE",
        "COPY",
        "SET",
        "RESET",
        "DO",
        "CALL",
        "BEGIN",
        "START",
        "COMMIT",
        "END",
        "ROLLBACK",
        "ABORT",
        "SAVEPOINT",
        "RELEASE",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE",
        "DISCARD",
        "VACUUM",
        "ANALYZE",
        "CLUSTER",
        "REINDEX",
        "LOCK",
        "LISTEN",
        "UNLISTEN",
        "NOTIFY",
        "SECURITY",
        "COMMENT",
        "REFRESH",
        "IMPORT",
        "LOAD",
        "CHECKPOINT",
        "REASSIGN",
    )
)


def read_query(
    url: str, sql: str, limit: int, max_bytes: int, seconds: float, lock_timeout_ms: int
) -> tuple[list[dict[str, Any]], bool]:
    """The rows of one query, as ``query_readonly`` bounds them on SQLite, run as the
    reader on a connection whose every transaction is read-only."""
    first = (sql.lstrip(" \t\r\n(").split(None, 1) or [""])[0].upper()
    if first in COMMANDS:
        raise _refused("this statement would write or change the session")
    bounds = (limit, max_bytes, seconds, lock_timeout_ms)
    try:
        return _run(url, sql, *bounds)
    except _NoReader:
        if not _arranged(url):
            raise _unavailable("the connecting role may not create it") from None
    try:
        return _run(url, sql, *bounds)
    except _NoReader:
        raise _unavailable("it could not be made") from None


class _NoReader(Exception):
    """The store has no reader function yet (migrated before it existed)."""


def _run(
    url: str, sql: str, limit: int, max_bytes: int, seconds: float, lock_timeout_ms: int
) -> tuple[list[dict[str, Any]], bool]:
    # The limits are the transaction's own (SET LOCAL), not the session's: behind a pooler
    # in transaction mode the session is another client's too (and startup options are
    # refused).
    limits = (
        f"SET LOCAL statement_timeout = {int(seconds * 1000)};"
        f" SET LOCAL lock_timeout = {int(lock_timeout_ms)}"
    )
    try:
        conn = psycopg.connect(url, autocommit=True, prepare_threshold=None)
    except psycopg.Error as exc:
        raise translate(exc, redact(url)) from None
    conn.adapters.register_loader("numeric", _Number)
    try:
        conn.execute(f"BEGIN READ ONLY; {limits}")
        names, types = _described(conn, sql)
        if not names:
            return [], False
        cursor = conn.execute(
            f"SELECT * FROM vybe_read_only(%s) AS q ({', '.join(types)})",
            (_bounded(sql, types, limit + 1),),
        )
        return bounded_rows(cursor, names, limit, max_bytes, _plain)
    except pg_errors.UndefinedFunction as exc:
        if "vybe_read_only" in str(exc):
            raise _NoReader from None
        raise _failed(exc, url, sql, seconds) from None
    except psycopg.Error as exc:
        raise _failed(exc, url, sql, seconds) from None
    finally:
        conn.close()


def _described(conn: Any, sql: str) -> tuple[list[str], list[str]]:
    """The query's column names and, for each, ``cN type`` (a pseudo-type such as
    pg_sleep's void as text), from the server's parse of it: nothing runs, and a query
    that is more than one statement is refused here."""
    pgconn = conn.pgconn
    parsed = pgconn.prepare(b"", sql.encode())
    if parsed.status != psycopg.pq.ExecStatus.COMMAND_OK:
        raise pg_errors.error_from_result(parsed)
    found = pgconn.describe_prepared(b"")
    fields = range(found.nfields)
    names = [(found.fname(i) or b"").decode() for i in fields]
    types = conn.execute(
        "SELECT CASE WHEN typtype = 'p' THEN 'text' ELSE format_type(f.t, f.m) END"
        " FROM unnest(%s::oid[], %s::int[]) WITH ORDINALITY AS f (t, m, i)"
        " JOIN pg_type ON pg_type.oid = f.t ORDER BY f.i",
        ([found.ftype(i) for i in fields], [found.fmod(i) for i in fields]),
    ).fetchall()
    return names, [f"c{i} {row[0]}" for i, row in enumerate(types)]


def _bounded(sql: str, columns: list[str], rows: int) -> str:
    """The query as the reader runs it: its columns renamed by position (so any names,
    even repeated ones, are kept apart), cast as described, at most ``rows`` of them."""
    names = [column.split(" ", 1)[0] for column in columns]
    cast = ", ".join(f"{column.replace(' ', '::', 1)}" for column in columns)
    body = sql.rstrip().rstrip(";")
    return f"SELECT {cast} FROM (\n{body}\n) AS q ({', '.join(names)}) LIMIT {int(rows)}"


def _arranged(url: str) -> bool:
    """The reader made on a store migrated before it existed; False where it cannot be."""
    from vybe.store.postgres import MIGRATION_LOCK, PgStore

    store = PgStore(url)
    try:

        def apply(conn: Any) -> bool:
            conn.raw.execute("SELECT pg_advisory_xact_lock(%s, %s)", MIGRATION_LOCK)
            return arrange(conn.raw)

        return store.transact(apply)
    finally:
        store.close()


def _failed(exc: psycopg.Error, url: str, sql: str, seconds: float) -> Exception:
    """A failed query as its stable code."""
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction | pg_errors.ActiveSqlTransaction):
        return _refused("this query would write or change the session")
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        return _refused(f"this query reaches past vybe's tables ({_primary(exc)})")
    if isinstance(exc, pg_errors.QueryCanceled):
        return VybeError(
            f"the query ran past its time limit of {seconds:g} s and was stopped",
            code="QUERY_TIMEOUT",
            context={"seconds": seconds},
            suggested_action="narrow the query (a WHERE, a LIMIT, no unbounded recursion)",
        )
    if exc.sqlstate == UNSAFE_READER:
        return _unavailable(_primary(exc))
    if _is_gone(exc):
        return translate(exc, redact(url))
    return InvalidInput(
        f"the query failed: {_primary(exc)}",
        context={"sql": shorten(sql, 500)},
        suggested_action=QUERY_HINT,
    )


def _primary(exc: psycopg.Error) -> str:
    """The server's message without its context (which would show the wrapped query)."""
    return exc.diag.message_primary or str(exc).strip()


def _unavailable(why: str) -> VybeError:
    return VybeError(
        f"no role that can only read vybe's tables is there to run queries as: {why}",
        code="QUERY_UNAVAILABLE",
        context={"role": READER},
        suggested_action=(
            "run any vybe command once as a role that may create roles, or have an"
            f" administrator create the NOLOGIN role {READER} with SELECT on vybe's tables"
        ),
    )


def _refused(why: str) -> ReadOnlyViolation:
    return ReadOnlyViolation(
        f"{why}; vybe data query only reads vybe's tables",
        suggested_action="use a SELECT statement over vybe's tables",
    )


def _plain(value: object) -> object:
    """A value JSON can carry: bytes as hex, non-finite floats and other types as text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    return str(value)
