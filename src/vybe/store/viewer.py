"""The SQL of `vybe ui`'s pages: keyset pages of sessions, a session's timeline, its
checkpoints, the event log and the store's high-water mark the live feed watches."""

from __future__ import annotations

import sqlite3
from typing import Any

from vybe.store.sessions import SUMMARY

TIMELINE_COLUMNS = "context_seq, type, source, content_text, tokens, created_at"
CHECKPOINT_COLUMNS = "id, mode, first_kept_seq, summarized_to_seq, mind, memo, now, created_at"


# The prefixes of their session ids (Claude Code, Codex, Gemini CLI, OpenCode, Aider, and
# the proxy's sessions of a client it does not recognise); vybe chat's have none.
CLIENTS = ("claude", "codex", "gemini", "opencode", "aider", "proxy")


def _client_range(client: str | None) -> tuple[list[str], list[object]]:
    """The condition on session ids that picks one client's sessions: an id range (the
    prefix up to ``:``, the character after it ``;`` closing it) that an index serves."""
    if client in CLIENTS:
        return ["s.id >= ?", "s.id < ?"], [f"{client}:", f"{client};"]
    if client == "chat":
        return [" AND ".join(f"NOT (s.id >= '{c}:' AND s.id < '{c};')" for c in CLIENTS)], []
    return [], []


def session_page(
    conn: sqlite3.Connection, before: str | None, limit: int, filters: dict[str, str]
) -> list[dict[str, Any]]:
    """Up to ``limit`` sessions by id, descending, those before ``before`` when given and of
    the ``filters`` given: ``client`` (a prefix of CLIENTS, or chat), ``agent``, ``project``
    (each an index's, with the id after it): the session ids carry their start, so this
    order is newest first without a sort of the summaries."""
    where, params = _client_range(filters.get("client"))
    for name, column in (("agent", "agent_name"), ("project", "project_id")):
        if filters.get(name):
            where.append(f"s.{column} = ?")
            params.append(filters[name])
    if before:
        where.append("s.id < ?")
        params.append(before)
    rows = conn.execute(
        "SELECT s.id, s.created_at, s.agent_name, s.project_id,"
        " (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS messages,"
        f"{SUMMARY}"
        f" FROM sessions s {'WHERE ' + ' AND '.join(where) if where else ''}"
        " ORDER BY s.id DESC LIMIT ?",
        (*params, limit),
    ).fetchall()
    return [dict(r) for r in rows]


# The distinct values of a column of sessions, smallest first: one index probe a value (a
# skip over the index sessions_agent or sessions_project), not a read of every session.
DISTINCT = (
    "WITH RECURSIVE v (value) AS (SELECT MIN({column}) FROM sessions"
    " UNION ALL SELECT (SELECT MIN({column}) FROM sessions WHERE {column} > v.value)"
    " FROM v WHERE v.value IS NOT NULL) SELECT value FROM v WHERE value IS NOT NULL LIMIT ?"
)


def session_origins(conn: sqlite3.Connection, limit: int) -> dict[str, list[str]]:
    """Up to ``limit`` of the agents and of the projects the sessions were started by and
    in, each sorted: the sessions page's filters."""
    return {
        name: [r[0] for r in conn.execute(DISTINCT.format(column=column), (limit,)).fetchall()]
        for name, column in (("agents", "agent_name"), ("projects", "project_id"))
    }


def timeline(
    conn: sqlite3.Connection, session_id: str, after: int, limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit`` messages of the session after ``context_seq`` ``after``, in order."""
    rows = conn.execute(
        f"SELECT {TIMELINE_COLUMNS} FROM messages WHERE session_id = ? AND context_seq > ?"
        " ORDER BY context_seq LIMIT ?",
        (session_id, after, limit),
    ).fetchall()
    return [dict(r) for r in rows]


def checkpoints(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """The session's checkpoints, oldest first."""
    rows = conn.execute(
        f"SELECT {CHECKPOINT_COLUMNS} FROM checkpoints WHERE session_id = ? ORDER BY id",
        (session_id,),
    ).fetchall()
    return [dict(r) for r in rows]


def event_page(
    conn: sqlite3.Connection, filters: dict[str, str], before: int | None, limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit`` events, newest first, below id ``before``; ``filters`` holds any of
    agent, kind, task."""
    columns = {"agent": "agent_name", "kind": "kind", "task": "task_id"}
    where: list[str] = ["1 = 1"]
    params: list[object] = []
    for name, column in columns.items():
        if filters.get(name):
            where.append(f"{column} = ?")
            params.append(filters[name])
    if before is not None:
        where.append("id < ?")
        params.append(before)
    rows = conn.execute(
        "SELECT id, kind, agent_name, task_id, message, created_at FROM events"
        f" WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT ?",
        (*params, limit),
    ).fetchall()
    return [dict(r) for r in rows]


def high_water(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """The largest message, event and checkpoint ids: any write moves one of them."""
    row = conn.execute(
        "SELECT (SELECT COALESCE(MAX(id), 0) FROM messages),"
        " (SELECT COALESCE(MAX(id), 0) FROM events),"
        " (SELECT COALESCE(MAX(id), 0) FROM checkpoints)"
    ).fetchone()
    return (int(row[0]), int(row[1]), int(row[2]))


def receipts(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """The session's compaction receipts (a client's own compactions), oldest first."""
    rows = conn.execute(
        "SELECT id, agent_name, compactor, trigger, tokens_before, tokens_after, completed,"
        " verbatim, kept, cut, released, created_at FROM compaction_receipts"
        " WHERE session_id = ? ORDER BY id",
        (session_id,),
    ).fetchall()
    return [dict(r) for r in rows]


def harness_inputs(
    conn: sqlite3.Connection, session_id: str, source_prefix: str
) -> list[dict[str, Any]]:
    """The session's inputs no person typed whose source line starts with
    ``source_prefix``, in record order."""
    rows = conn.execute(
        "SELECT context_seq, source, content_text, created_at FROM messages"
        " WHERE session_id = ? AND type = 'harness' AND substr(source, 1, ?) = ?"
        " ORDER BY context_seq",
        (session_id, len(source_prefix), source_prefix),
    ).fetchall()
    return [dict(r) for r in rows]


def attempts(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """The session's checkpoint attempts, accepted or failed, oldest first."""
    rows = conn.execute(
        "SELECT id, mode, reason, outcome, checkpoint_id, tokens_before, tokens_after,"
        " problems, fallbacks, created_at FROM checkpoint_attempts"
        " WHERE session_id = ? ORDER BY id",
        (session_id,),
    ).fetchall()
    return [dict(r) for r in rows]


def typed_messages(conn: sqlite3.Connection, session_id: str, seqs: list[int]) -> dict[int, str]:
    """The person's messages of the session at ``seqs``, by record number."""
    if not seqs:
        return {}
    marks = ", ".join("?" * len(seqs))
    rows = conn.execute(
        f"SELECT context_seq, content_text FROM messages WHERE session_id = ?"
        f" AND context_seq IN ({marks})",
        (session_id, *seqs),
    ).fetchall()
    return {int(r[0]): r[1] for r in rows}


TASK_COLUMNS = (
    "id, title, status, priority, claimed_by, lease_expires_at, blocked_reason, project_id,"
    " updated_at"
)


def task_board(
    conn: sqlite3.Connection, limit: int, status: str | None = None, before: str | None = None
) -> list[dict[str, Any]]:
    """Up to ``limit`` tasks of each status (of ``status`` alone when given), the most
    recently changed first; ``before`` (``updated_at|id`` of a task) starts after that one."""
    key = before.split("|", 1) if before and "|" in before else None
    found: list[dict[str, Any]] = []
    for each in (status,) if status else ("pending", "in_progress", "blocked", "completed"):
        after = " AND (updated_at < ? OR (updated_at = ? AND id > ?))" if key else ""
        rows = conn.execute(
            f"SELECT {TASK_COLUMNS} FROM tasks WHERE status = ?{after}"
            " ORDER BY updated_at DESC, id LIMIT ?",
            (each, *((key[0], key[0], key[1]) if key else ()), limit),
        ).fetchall()
        found.extend(dict(r) for r in rows)
    return found


def dependencies(conn: sqlite3.Connection, task_ids: list[str]) -> list[tuple[str, str]]:
    """The (task, depends on) pairs among ``task_ids``."""
    if not task_ids:
        return []
    marks = ", ".join("?" * len(task_ids))
    rows = conn.execute(
        "SELECT task_id, depends_on_task_id FROM task_dependencies"
        f" WHERE task_id IN ({marks}) AND depends_on_task_id IN ({marks})"
        " ORDER BY task_id, depends_on_task_id",
        (*task_ids, *task_ids),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def memory_page(
    conn: sqlite3.Connection, filters: dict[str, str], after: str | None, limit: int
) -> list[dict[str, Any]]:
    """Up to ``limit`` live memory entries by id after ``after``, filtered by scope and kind."""
    where, params = ["superseded_by IS NULL"], []
    for name in ("scope", "kind"):
        if filters.get(name):
            where.append(f"{name} = ?")
            params.append(filters[name])
    if after:
        where.append("id > ?")
        params.append(after)
    rows = conn.execute(
        "SELECT id, key, value, scope, scope_id, kind, pinned, expires_at, access_count,"
        f" updated_at FROM memory WHERE {' AND '.join(where)} ORDER BY id LIMIT ?",
        (*params, limit),
    ).fetchall()
    return [dict(r) for r in rows]
