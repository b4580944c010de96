"""Scoped memory rows: upsert with a sticky pin, ranking by decay, expiry and history."""

from __future__ import annotations

import sqlite3

from vybe import privacy
from vybe.store.rows import to_dict, to_dicts
from vybe.tuples import Row

# A memory row has no JSON columns, and one 0/1 flag.
_NO_JSON = ()
_FLAGS = ("pinned",)


CANDIDATES = 100
_AGE = "CAST(MAX(julianday(?) - julianday(updated_at), 0) AS INTEGER)"
_LIVE = "superseded_by IS NULL AND (expires_at IS NULL OR expires_at > ?)"

# Half-life in days when an entry has none of its own: directives never decay.
_HALF_LIFE = (
    "COALESCE(half_life_days,"
    " CASE kind WHEN 'directive' THEN 1e9 WHEN 'lesson' THEN 14.0 ELSE 90.0 END)"
)
_RELEVANCE = (
    "ROUND((1.0 + access_count) / (1.0 + MAX((julianday(?) - julianday(updated_at))"
    f" / {_HALF_LIFE}, 0)), 6)"
)


class MemoryRow(Row):
    """One memory as written: its key, value, scope, kind and provenance."""

    __slots__ = ()
    memory_id: str
    key: str
    value: str
    value_type: str | None
    scope: str
    scope_id: str | None
    kind: str
    pinned: bool
    half_life_days: float | None
    expires_at: str | None
    source_event_id: int | None
    source_task_id: str | None
    supersedes: str | None


def upsert(conn: sqlite3.Connection, row: MemoryRow, at: str) -> dict:
    """Insert or overwrite the live entry; pin only goes up unless the old entry had expired."""
    expired = "(memory.expires_at IS NOT NULL AND memory.expires_at <= excluded.updated_at)"
    result = conn.execute(
        "INSERT INTO memory (id, key, value, value_type, scope, scope_id, kind, pinned,"
        " half_life_days, expires_at, source_event_id, source_task_id, supersedes,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (team, scope, scope_id, key) WHERE superseded_by IS NULL DO UPDATE SET"
        " value = excluded.value, value_type = excluded.value_type, kind = excluded.kind,"
        f" pinned = CASE WHEN {expired} THEN excluded.pinned"
        "   WHEN excluded.pinned = 1 THEN 1 ELSE memory.pinned END,"
        f" access_count = CASE WHEN {expired} THEN 0 ELSE memory.access_count END,"
        f" created_at = CASE WHEN {expired} THEN excluded.created_at ELSE memory.created_at END,"
        " half_life_days = excluded.half_life_days, expires_at = excluded.expires_at,"
        " source_event_id = excluded.source_event_id, source_task_id = excluded.source_task_id,"
        " supersedes = COALESCE(excluded.supersedes, memory.supersedes),"
        " updated_at = excluded.updated_at"
        " RETURNING *",
        (
            row.memory_id,
            stored_key(row.key),
            privacy.scrub_named(stored_key(row.key), row.value)
            if isinstance(row.value, str)
            else row.value,
            row.value_type,
            row.scope,
            row.scope_id,
            row.kind,
            int(row.pinned),
            row.half_life_days,
            row.expires_at,
            row.source_event_id,
            row.source_task_id,
            row.supersedes,
            at,
            at,
        ),
    ).fetchone()
    return to_dict(result, _NO_JSON, _FLAGS)  # type: ignore[return-value]


def stored_key(key: str) -> str:
    """A key as the store keeps it, and so looks it up: scrubbed like any text (a key may
    be typed with a private span or a credential in it)."""
    return privacy.scrub(key)


def get_live(
    conn: sqlite3.Connection, scope: str, scope_id: str, key: str, now: str
) -> dict | None:
    row = conn.execute(
        f"SELECT * FROM memory WHERE scope = ? AND scope_id = ? AND key = ? AND {_LIVE}",
        (scope, scope_id, stored_key(key), now),
    ).fetchone()
    return to_dict(row, _NO_JSON, _FLAGS)


def touch(conn: sqlite3.Connection, ids: list[str], at: str, *, deferred: bool = False) -> None:
    """Count a real read of these entries, locking them in key order. ``deferred`` on a
    server store: the bump runs just after the reading transaction commits, in a statement
    of its own, so a fleet's resumes hold an entry's lock for one statement each, not a
    transaction (a client that dies in between loses the count, never the read)."""
    if not ids:
        return
    marks = ", ".join("?" * len(ids))
    statement = (
        "UPDATE memory SET access_count = access_count + 1, last_accessed_at = ?"
        f" WHERE id IN (SELECT id FROM memory WHERE id IN ({marks})"
        " ORDER BY id /*postgresql: FOR UPDATE*/)"
    )
    run = getattr(conn, "after_commit", conn.execute) if deferred else conn.execute
    run(statement, (at, *ids))


def set_pinned(conn: sqlite3.Connection, memory_id: str, pinned: bool, at: str) -> dict:
    row = conn.execute(
        "UPDATE memory SET pinned = ?, updated_at = ? WHERE id = ? RETURNING *",
        (int(pinned), at, memory_id),
    ).fetchone()
    return to_dict(row, _NO_JSON, _FLAGS)  # type: ignore[return-value]


def supersede(conn: sqlite3.Connection, old_id: str, new_id: str, at: str) -> None:
    conn.execute(
        "UPDATE memory SET superseded_by = ?, superseded_at = ? WHERE id = ?",
        (new_id, at, old_id),
    )


def delete(conn: sqlite3.Connection, memory_id: str) -> int:
    return conn.execute("DELETE FROM memory WHERE id = ?", (memory_id,)).rowcount


class MemoryQuery(Row):
    """Filters of a memory listing."""

    __slots__ = ()
    scope: str | None = None
    scope_id: str | None = None
    kind: str | None = None
    include_superseded: bool = False
    limit: int = 50


def select(conn: sqlite3.Connection, query: MemoryQuery, now: str) -> list[dict]:
    where = ["(expires_at IS NULL OR expires_at > ?)"]
    params: list[object] = [now]
    if not query.include_superseded:
        where.append("superseded_by IS NULL")
    for column in ("scope", "scope_id", "kind"):
        value = getattr(query, column)
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    rows = conn.execute(
        f"SELECT * FROM memory WHERE {' AND '.join(where)}"
        " ORDER BY scope, scope_id, key, created_at LIMIT ?",
        (*params, query.limit),
    ).fetchall()
    return to_dicts(rows, _NO_JSON, _FLAGS)


# Each candidate list of a scope: (extra condition, order).
_CANDIDATE_LISTS = (
    ("", "pinned DESC, updated_at DESC"),
    ("", "pinned DESC, access_count DESC"),
    ("AND kind = 'directive'", "access_count DESC"),
)


def _candidates(condition: str, order: str, any_id: bool = False) -> str:
    """One candidate list of a scope: of one scope id, or (``any_id``) of all of them, along
    the scope's own indexes (0015_memory_any_scope_id.sql)."""
    which = "" if any_id else " AND scope_id = ?"
    return (
        f"SELECT id FROM (SELECT id FROM memory WHERE scope = ?{which} AND {_LIVE}"
        f" {condition} ORDER BY {order} LIMIT ?)"
    )


def ranked(
    conn: sqlite3.Connection,
    scopes: list[tuple[str, str | None]],
    as_of: str,
    now: str,
    limit: int,
) -> list[dict]:
    """Live entries of these scopes (a scope id of None: every id of the scope): pinned
    first, then access count against decayed age.

    Only the CANDIDATES most recent, most read and directive entries of each scope are
    ranked, so the cost does not grow with the number of entries a scope holds."""
    parts, params = [], []
    for scope, scope_id in scopes:
        for condition, order in _CANDIDATE_LISTS:
            parts.append(_candidates(condition, order, any_id=scope_id is None))
            params += [scope, *([] if scope_id is None else [scope_id]), now, CANDIDATES]
    # The candidates drive the join (each entry then read by its key): PostgreSQL would
    # otherwise match an IN list against a scan of every entry.
    rows = conn.execute(
        f"SELECT m.*, {_RELEVANCE} AS relevance, {_AGE} AS age_days FROM"
        f" (SELECT DISTINCT id FROM ({' UNION ALL '.join(parts)})) c"
        " CROSS JOIN memory m ON m.id = c.id"
        " ORDER BY pinned DESC, relevance DESC, updated_at DESC, m.id LIMIT ?",
        (as_of, as_of, *params, limit),
    ).fetchall()
    return to_dicts(rows, _NO_JSON, _FLAGS)


def gc(conn: sqlite3.Connection, now: str, limit: int) -> int:
    """Delete up to ``limit`` expired entries."""
    return conn.execute(
        "DELETE FROM memory WHERE id IN (SELECT id FROM memory"
        " WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?)",
        (now, limit),
    ).rowcount


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM memory").fetchone()[0])
