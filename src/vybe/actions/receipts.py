"""A receipt for every compaction of a session: what it did to the person's messages.

vybe's own checkpoints have theirs in the audit of checkpoint attempts (mode, outcome,
tokens before and after, the checks that failed, the fallbacks taken) and the checkpoint
it made: the messages its MEMO ticked are given back verbatim (cut short when the memo was
over its budget), the unticked ones stay in the record only, and those of the recent tail
and of the turn in progress stay in the context as they are. Claude Code's and Codex's
compactions have the receipts their hooks recorded (vybe.integrations.compaction).

Each receipt lists record numbers (``seq``) under ``verbatim``, ``kept``, ``cut`` and
``released``.
"""

from __future__ import annotations

from vybe import limits
from vybe.errors import NotFound
from vybe.store import Store
from vybe.store import checkpoints as checkpoint_rows
from vybe.store import receipts as receipt_rows
from vybe.store import record as record_rows
from vybe.store import sessions as session_rows

SHORTENED = "memo_over_budget_shortened"


def _vybe_receipt(
    attempt: checkpoint_rows.Attempt, checkpoint: checkpoint_rows.Checkpoint | None, users: list
) -> dict:
    lists: dict[str, list[int]] = {"verbatim": [], "kept": [], "cut": [], "released": []}
    typed = 0
    if checkpoint is not None:
        ticked = {m.seq for m in checkpoint.memo if m.checked}
        given = "cut" if SHORTENED in attempt.fallbacks else "verbatim"
        inputs = set(checkpoint.kept_inputs)
        for row in users:
            if row.created_at > checkpoint.created_at:
                break
            typed += 1
            if row.seq >= checkpoint.first_kept_seq or row.seq in inputs:
                lists["kept"].append(row.seq)
            elif row.seq in ticked:
                lists[given].append(row.seq)
            else:
                lists["released"].append(row.seq)
    return {
        "compactor": "vybe",
        "at": attempt.created_at,
        "attempt_id": attempt.id,
        "trigger": attempt.reason,
        "mode": attempt.mode,
        "outcome": attempt.outcome,
        "tokens_before": attempt.tokens_before,
        "tokens_after": attempt.tokens_after,
        "failed_checks": list(attempt.problems),
        "repair_ran": attempt.repair_ran,
        "fallbacks": list(attempt.fallbacks),
        "error": attempt.error,
        "typed": typed,
        **lists,
    }


def _harness_receipt(row: dict, typed: int) -> dict:
    return {
        "compactor": row["compactor"],
        "at": row["created_at"],
        "receipt_id": row["id"],
        "trigger": row["trigger"],
        "mode": None,
        "outcome": "completed" if row["completed"] else "started",
        "tokens_before": row["tokens_before"],
        "tokens_after": row["tokens_after"],
        "failed_checks": [],
        "repair_ran": False,
        "fallbacks": [],
        "error": None,
        "typed": typed,
        **{name: row[name] for name in receipt_rows.LISTS},
    }


def session_receipts(store: Store, session_id: str, limit: int) -> dict:
    """The newest ``limit`` receipts of a session, oldest first, each numbered."""
    limits.text("session_id", session_id, limits.PATH_MAX, required=True)
    with store.snapshot() as conn:
        if not session_rows.exists(conn, session_id):
            raise NotFound(
                f"no session {session_id!r} in the record",
                context={"entity": "session", "id": session_id},
                suggested_action="run `vybe session list` to see session ids",
            )
        attempts = checkpoint_rows.list_attempts(conn, session_id)
        harness = [
            _harness_receipt(r, receipt_rows.typed_then(conn, session_id, r))
            for r in receipt_rows.harness_receipts(conn, session_id)
        ]
        users = record_rows.messages_of_type(conn, session_id, "user")
        made: dict[int | None, checkpoint_rows.Checkpoint | None] = {
            a.checkpoint_id: checkpoint_rows.checkpoint_by_id(conn, a.checkpoint_id)
            for a in attempts
            if a.checkpoint_id is not None
        }
    receipts = [_vybe_receipt(a, made.get(a.checkpoint_id), users) for a in attempts]
    receipts += harness
    receipts.sort(key=lambda r: r["at"])
    for number, receipt in enumerate(receipts, 1):
        receipt["number"] = number
    shown = receipts[-limit:]
    return {
        "session_id": session_id,
        "count": len(receipts),
        "compactions": sum(r["outcome"] in ("accepted", "completed") for r in receipts),
        "receipts": shown,
    }
