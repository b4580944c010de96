"""`vybe forget` and retention: take back what the store holds of a session, a string or a
time, from every table and index (vybe.store.forget says what each table keeps as a marker).

On SQLite the files lose the bytes too: the connection overwrites the pages it frees
(``secure_delete``), the search indexes are merged into one segment each, and the WAL is
copied into the database and emptied (TRUNCATE). A forget keeps nothing of what it was
given: no request id is recorded for it (a replay forgets what is left, which is nothing),
and its result names the string by its length only.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from vybe import clock
from vybe.errors import InvalidInput
from vybe.store import Store
from vybe.store import forget as rows
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

MIN_TEXT = 8  # a shorter string would match all over the store
SELECTORS = ("session", "text", "before")
# What retention may forget, by its config key: the tables each one names.
RETAINED = {
    "messages": ("messages",),
    "events": ("events",),
    "checkpoint_attempts": ("checkpoint_attempts",),
}


class Selection(Row):
    """What one forget names: exactly one of ``session``, ``text``, ``before``, maybe within
    one ``project``."""

    __slots__ = ()
    session: str | None = None
    text: str | None = None
    before: str | None = None
    project: str | None = None

    def check(self) -> Selection:
        named = [name for name in SELECTORS if getattr(self, name) is not None]
        if len(named) != 1:
            raise InvalidInput(
                "name exactly one of --session, --text, --before",
                context={"field": "selector", "given": named},
                suggested_action="pass one of --session ID, --text STRING, --before DATE",
            )
        if self.text is not None and len(self.text) < MIN_TEXT:
            raise InvalidInput(
                f"--text must be at least {MIN_TEXT} characters: a shorter string would"
                " match all over the store",
                context={"field": "text", "length": len(self.text), "minimum": MIN_TEXT},
                suggested_action="pass the whole string to forget",
            )
        if self.before is not None:
            return self._replace(before=clock.iso(parse_date(self.before)))
        return self


def parse_date(text: str) -> datetime:
    """A date (``2026-01-31``, midnight UTC) or a UTC time (``2026-01-31T12:00:00Z``)."""
    for layout in ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%M:%S.%fZ"):
        try:
            return datetime.strptime(text, layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise InvalidInput(
        f"--before must be a date such as 2026-01-31 or a UTC time such as"
        f" 2026-01-31T12:00:00Z, not {text!r}",
        context={"field": "before"},
        suggested_action="pass --before YYYY-MM-DD",
    )


def _where(conn: Any, selection: Selection, tables: tuple[str, ...]) -> rows.Where:
    project = selection.project
    sessions = rows.project_sessions(conn, project) if project is not None else None
    if selection.session is not None:
        named = [selection.session] if sessions is None or selection.session in sessions else []
        return rows.session_where(conn, named)
    assert selection.before is not None
    return rows.before_where(selection.before, tables, project, sessions or [])


def _counts(
    conn: Any, dialect: str, selection: Selection, tables: tuple[str, ...], apply: bool
) -> dict[str, int]:
    if selection.text is not None:
        project = selection.project
        sessions = rows.project_sessions(conn, project) if project is not None else None
        return rows.forget_text(conn, dialect, selection.text, project, sessions, apply)
    return rows.forget_rows(conn, dialect, _where(conn, selection, tables), apply)


def _forget(dialect: str, selection: Selection, tables: tuple[str, ...], conn: Any) -> JSONObject:
    with rows.unlocked(conn):
        counts = _counts(conn, dialect, selection, tables, apply=True)
    if dialect == "sqlite" and any(counts.values()):
        rows.optimize(conn)
    return counts


ALL_TABLES = (*rows.RECORD, *rows.DERIVED)


def forget(
    store: Store, selection: Selection, dry_run: bool = False, tables: tuple[str, ...] = ALL_TABLES
) -> JSONObject:
    """Forget what ``selection`` names (of ``tables``, for --before): how many rows of each
    table were changed or deleted, or with ``dry_run`` would be, changing nothing."""
    selection = selection.check()
    if dry_run:
        with store.snapshot() as conn:
            counts = _counts(conn, store.dialect, selection, tables, apply=False)
        return _result(selection, counts, dry_run, None)
    if store.dialect != "sqlite":
        counts = store.transact(partial(_forget, store.dialect, selection, tables))
        return _result(selection, counts, dry_run, None)
    was = rows.secure_delete(store.conn, True)
    try:
        counts = store.transact(partial(_forget, store.dialect, selection, tables))
        wal = rows.truncate_wal(store.conn) if any(counts.values()) else None
    finally:
        rows.secure_delete(store.conn, bool(was))
    return _result(selection, counts, dry_run, wal)


def _result(selection: Selection, counts: dict[str, int], dry_run: bool, wal: Any) -> JSONObject:
    named: dict[str, Any] = {k: v for k, v in selection._asdict().items() if v is not None}
    if "text" in named:
        named["text"] = {"length": len(named["text"])}  # the string itself is kept nowhere
    return {
        "dry_run": dry_run,
        "selection": named,
        "forgotten": {table: n for table, n in counts.items()},
        "total": sum(counts.values()),
        "marker": rows.MARKER,
        "wal_checkpoint": wal,
    }


def retain(store: Store, ages: dict[str, timedelta], dry_run: bool) -> JSONObject:
    """Retention: forget each kind of row older than its age (config.yaml ``retention:``);
    nothing when no age is set."""
    done: dict[str, Any] = {}
    for key, age in sorted(ages.items()):
        before = clock.iso(clock.now() - age)
        result = forget(store, Selection(before=before), dry_run, RETAINED[key])
        done[key] = {"before": before, "forgotten": result["forgotten"]}
    return done
