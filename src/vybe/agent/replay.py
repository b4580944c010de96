"""Replay a recorded session through the engine with another window, into a copy session.

The rows of the source session are appended one by one to a new session, and before each
reply the engine prepares the request that reply answered, as if the session were being
continued with this model: it checkpoints wherever it would. Each person's message starts a
new engine run (as ``vybe chat --once`` does), so the two-unproductive-checkpoints rule
applies per turn. The source rows are never touched: the record is append-only, and a
checkpoint written against the source would change its context; the copy holds the replay's
rows, checkpoints and audit, and ``vybe session show`` / ``context`` work on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vybe import clock
from vybe.agent.checkpoints import kept
from vybe.agent.inspect import conversation_frame, require_rows
from vybe.context.budget import compute
from vybe.context.record import MessageRow, Record, check_session_id
from vybe.errors import ContextExhausted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.llm.base import ToolSpec

# Request facts and usage describe a request sent with the source's own window and model;
# carried into the copy they would anchor the replay's estimates to the wrong request.
ANCHOR_KEYS = ("request", "usage")


def _copied(row: MessageRow, session_id: str) -> MessageRow:
    data = {k: v for k, v in row.data.items() if k not in ANCHOR_KEYS}
    return row._replace(session_id=session_id, seq=0, data=data, created_at="")


def _step(
    engine: Any,
    copy: str,
    at_seq: int,
    frame: tuple[str, tuple[ToolSpec, ...]],
    report: dict[str, Any],
) -> None:
    prepared = engine.prepare(copy, *frame)
    report["requests"] += 1
    for attempt in prepared.attempts:
        checkpoint = engine.record.latest_checkpoint(copy) if attempt.checkpoint_id else None
        report["checkpoints"].append(
            {
                "before_seq": at_seq,
                "mode": attempt.mode,
                "reason": attempt.reason,
                "outcome": attempt.outcome,
                "tokens_before": attempt.tokens_before,
                "tokens_after": attempt.tokens_after,
                "problems": list(attempt.problems),
                "fallbacks": list(attempt.fallbacks),
                "error": attempt.error,
                "kept": kept(checkpoint) if checkpoint else None,
            }
        )
    report["tokens"] = prepared.tokens


def replay(engine: Any, source_id: str, workdir: Path) -> dict[str, Any]:
    """Run the engine over ``source_id``'s rows in a copy session; what each checkpoint kept."""
    record: Record = engine.record
    rows = require_rows(record, check_session_id(source_id))
    copy = clock.new_id("replay")
    frame = conversation_frame(workdir)
    budget = compute(engine.limits)
    report: dict[str, Any] = {
        "source_session": source_id,
        "session_id": copy,
        "rows": len(rows),
        "window": budget.window,
        "threshold": budget.threshold,
        "requests": 0,
        "tokens": 0,
        "stopped": None,
        "checkpoints": [],
    }
    try:
        for row in rows:
            if row.type == "user":
                engine.new_run()
            if row.type == "assistant":
                _step(engine, copy, row.seq, frame, report)
            record.append(_copied(row, copy))
        _step(engine, copy, rows[-1].seq + 1, frame, report)
    except ContextExhausted as exc:
        report["stopped"] = {"code": exc.code, "message": exc.message, **exc.context}
    report["accepted"] = sum(c["outcome"] == "accepted" for c in report["checkpoints"])
    return report
