"""Housekeeping SQL: find long task logs, fold and archive them, prune, checkpoint the WAL.

Archiving only sets ``archived_at`` (the one change the events triggers allow) and pruning
only deletes archived rows, so the log stays append-only.
"""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject


def recent_tasks(conn: sqlite3.Connection, scan: int) -> list[str]:
    """Tasks named by the newest ``scan`` events: the only ones whose logs can have grown."""
    rows = conn.execute(
        "SELECT task_id FROM (SELECT task_id FROM events ORDER BY id DESC LIMIT ?)"
        " WHERE task_id IS NOT NULL GROUP BY task_id ORDER BY COUNT(*) DESC, task_id",
        (scan,),
    ).fetchall()
    return [r[0] for r in rows]


def live_count(conn: sqlite3.Connection, task_id: str, cap: int) -> int:
    """How many live events a task has, counting no further than ``cap``."""
    row = conn.execute(
        "SELECT COUNT(*) FROM (SELECT 1 FROM events"
        " WHERE task_id = ? AND archived_at IS NULL LIMIT ?)",
        (task_id, cap),
    ).fetchone()
    return int(row[0])


# Hand-offs are never folded: a standing one is how its assignee finds the task (rule 2),
# and pruning a folded one would lose it.
_FOLDS = "kind <> 'task_assigned'"


def foldable(conn: sqlite3.Connection, task_id: str, keep: int, limit: int) -> list[JSONObject]:
    """A task's oldest live events beyond its newest ``keep``, oldest first, at most ``limit``
    (hand-offs left out)."""
    rows = conn.execute(
        "SELECT id, kind, message, created_at FROM events"
        f" WHERE task_id = ? AND archived_at IS NULL AND {_FOLDS} AND id < ("
        "   SELECT MIN(id) FROM (SELECT id FROM events WHERE task_id = ? AND archived_at IS NULL"
        "   ORDER BY id DESC LIMIT ?))"
        " ORDER BY id LIMIT ?",
        (task_id, task_id, keep, limit),
    ).fetchall()
    return [dict(r) for r in rows]


def archive(conn: sqlite3.Connection, task_id: str, from_id: int, to_id: int, at: str) -> int:
    return conn.execute(
        "UPDATE events SET archived_at = ?"
        f" WHERE task_id = ? AND archived_at IS NULL AND {_FOLDS} AND id BETWEEN ? AND ?",
        (at, task_id, from_id, to_id),
    ).rowcount


def prune(conn: sqlite3.Connection, archived_before: str, limit: int) -> int:
    """Delete up to ``limit`` events archived before the cut-off, never the newest event:
    it holds the largest id, which keeps ids from being handed out again."""
    return conn.execute(
        "DELETE FROM events WHERE id IN (SELECT id FROM events"
        " WHERE archived_at < ? AND id < (SELECT MAX(id) FROM events)"
        " ORDER BY archived_at LIMIT ?)",
        (archived_before, limit),
    ).rowcount


# The idempotency ledger: a request id is forgotten only when it is both old (by the clock)
# and not among the newest LEDGER_KEEP (by write order, which no clock step changes); past
# LEDGER_CAP records the oldest go whatever their age, so a busy agent's ledger is bounded.
# Every FORGET_EVERY-th write forgets up to twice that many, so it keeps up without maintain.
LEDGER_KEEP = 10_000
LEDGER_CAP = 100_000
FORGET_EVERY = 256
REQUEST_RETENTION_DAYS = 30


def forget_requests(conn: sqlite3.Connection, created_before: str, limit: int) -> int:
    """Delete, among the ``limit`` oldest idempotency records, those that may be forgotten.

    Rows are numbered in the order they were written (the newest is never deleted, so a
    number is never handed out again), so the oldest rowids are the oldest records, and no
    index on created_at has to be kept up by every mutation; the work is ``limit`` rows."""
    newest = conn.execute("SELECT MAX(rowid) FROM idempotency").fetchone()[0] or 0
    return conn.execute(
        "DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM"
        " (SELECT rowid, created_at FROM idempotency ORDER BY rowid LIMIT ?)"
        " WHERE rowid <= ? AND (created_at < ? OR rowid <= ?))",
        (limit, newest - LEDGER_KEEP, created_before, newest - LEDGER_CAP),
    ).rowcount


def forget_now_and_then(conn: sqlite3.Connection, rowid: int, created_before: str) -> None:
    """Called by each write of the ledger: every FORGET_EVERY-th one forgets a batch."""
    if rowid % FORGET_EVERY == 0:
        forget_requests(conn, created_before, 2 * FORGET_EVERY)


def checkpoint(conn: sqlite3.Connection) -> JSONObject:
    """A passive WAL checkpoint: copies what it can without waiting for readers."""
    busy, log, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    return {"busy": bool(busy), "wal_frames": log, "checkpointed_frames": done}
