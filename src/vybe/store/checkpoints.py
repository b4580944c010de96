"""The engine's checkpoints in SQL: each accepted checkpoint and the audit row of every
attempt, read and written for vybe.store.record's ``SqliteRecord``."""

from __future__ import annotations

import sqlite3

from vybe import clock, jsonio, privacy
from vybe.context.checkpoints import Attempt, Checkpoint, MemoMark
from vybe.store.base import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

__all__ = [
    "Attempt",
    "Checkpoint",
    "MemoMark",
    "checkpoint_by_id",
    "latest_checkpoint",
    "list_attempts",
    "save_attempt",
]


def _mark(stored: JSONObject) -> MemoMark:
    """A stored memo mark; one written before ``ticked`` was kept counts its check as a tick."""
    return MemoMark(stored["seq"], stored["checked"], stored.get("ticked", stored["checked"]))


def _checkpoint(row: sqlite3.Row) -> Checkpoint:
    return Checkpoint(
        id=row["id"],
        session_id=row["session_id"],
        mode=row["mode"],
        first_kept_seq=row["first_kept_seq"],
        summarized_to_seq=row["summarized_to_seq"],
        mind=row["mind"],
        now=row["now"],
        memo=tuple(_mark(m) for m in jsonio.loads(row["memo"])),
        kept_inputs=tuple(jsonio.loads(row["kept_inputs"])),
        skills=tuple(jsonio.loads(row["skills"])),
        files=jsonio.loads(row["files"]),
        tokens_before=row["tokens_before"],
        tokens_after=row["tokens_after"],
        created_at=row["created_at"],
    )


def latest_checkpoint(conn: sqlite3.Connection, session_id: str) -> Checkpoint | None:
    row = conn.execute(
        "SELECT * FROM checkpoints WHERE session_id = ? ORDER BY id DESC LIMIT 1", (session_id,)
    ).fetchone()
    return _checkpoint(row) if row else None


def checkpoint_by_id(conn: sqlite3.Connection, checkpoint_id: int) -> Checkpoint | None:
    row = conn.execute("SELECT * FROM checkpoints WHERE id = ?", (checkpoint_id,)).fetchone()
    return _checkpoint(row) if row else None


def _insert_checkpoint(conn: sqlite3.Connection, cp: Checkpoint, now: str) -> int:
    memo = [{"seq": m.seq, "checked": m.checked, "ticked": m.ticked} for m in cp.memo]
    checkpoint_id: int = conn.execute(
        "INSERT INTO checkpoints (session_id, mode, first_kept_seq, summarized_to_seq, mind,"
        " memo, now, kept_inputs, skills, files, tokens_before, tokens_after, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            cp.session_id,
            cp.mode,
            cp.first_kept_seq,
            cp.summarized_to_seq,
            privacy.scrub(cp.mind),
            jsonio.dumps(memo),
            privacy.scrub(cp.now),
            jsonio.dumps(list(cp.kept_inputs)),
            jsonio.dumps(list(cp.skills), ensure_ascii=False),
            privacy.scrub_json(jsonio.dumps(cp.files, ensure_ascii=False)),
            cp.tokens_before,
            cp.tokens_after,
            now,
        ),
    ).fetchone()[0]
    return checkpoint_id


def _insert_attempt(conn: sqlite3.Connection, at: Attempt, now: str) -> int:
    attempt_id: int = conn.execute(
        "INSERT INTO checkpoint_attempts (session_id, run_id, mode, reason, outcome,"
        " checkpoint_id, tokens_before, tokens_after, problems, repair_ran, fallbacks,"
        " flagged_references, rounds, usage, error, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (
            at.session_id,
            at.run_id,
            at.mode,
            at.reason,
            at.outcome,
            at.checkpoint_id,
            at.tokens_before,
            at.tokens_after,
            privacy.scrub_json(jsonio.dumps(list(at.problems), ensure_ascii=False)),
            int(at.repair_ran),
            jsonio.dumps(list(at.fallbacks)),
            privacy.scrub_json(jsonio.dumps(list(at.flagged_references), ensure_ascii=False)),
            at.rounds,
            jsonio.dumps(at.usage),
            privacy.scrub(at.error) if at.error is not None else None,
            now,
        ),
    ).fetchone()[0]
    return attempt_id


def save_attempt(
    store: Store, attempt: Attempt, checkpoint: Checkpoint | None
) -> tuple[Attempt, Checkpoint | None]:
    """Store an attempt and, when it was accepted, its checkpoint, in one transaction."""

    def body(conn: sqlite3.Connection) -> tuple[Attempt, Checkpoint | None]:
        now = clock.now_iso()
        conn.execute(
            "INSERT INTO sessions (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
            (attempt.session_id, now),
        )
        stored_cp = None
        if checkpoint is not None:
            stored_cp = checkpoint._replace(
                id=_insert_checkpoint(conn, checkpoint, now), created_at=now
            )
        linked = attempt._replace(checkpoint_id=stored_cp.id if stored_cp else None, created_at=now)
        return linked._replace(id=_insert_attempt(conn, linked, now)), stored_cp

    return store.transact(body)


def list_attempts(conn: sqlite3.Connection, session_id: str) -> list[Attempt]:
    rows = conn.execute(
        "SELECT * FROM checkpoint_attempts WHERE session_id = ? ORDER BY id", (session_id,)
    ).fetchall()
    return [
        Attempt(
            id=r["id"],
            session_id=r["session_id"],
            run_id=r["run_id"],
            mode=r["mode"],
            reason=r["reason"],
            outcome=r["outcome"],
            checkpoint_id=r["checkpoint_id"],
            tokens_before=r["tokens_before"],
            tokens_after=r["tokens_after"],
            problems=tuple(jsonio.loads(r["problems"])),
            repair_ran=bool(r["repair_ran"]),
            fallbacks=tuple(jsonio.loads(r["fallbacks"])),
            flagged_references=tuple(jsonio.loads(r["flagged_references"])),
            rounds=r["rounds"],
            usage=jsonio.loads(r["usage"]),
            error=r["error"],
            created_at=r["created_at"],
        )
        for r in rows
    ]
