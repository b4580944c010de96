"""Checkpoints a person asks for, and what one kept, in terms a person can check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vybe.agent.inspect import conversation_frame, require_rows
from vybe.context import mind
from vybe.context.budget import estimate
from vybe.context.record import Checkpoint, Record, check_session_id


def kept(checkpoint: Checkpoint) -> dict[str, Any]:
    """The Mission entries (with their status), the user's words kept by number, sizes."""
    mission = mind.parse(checkpoint.mind).bodies.get(mind.MISSION, [])
    return {
        "checkpoint_id": checkpoint.id,
        "mode": checkpoint.mode,
        "summarized_to_seq": checkpoint.summarized_to_seq,
        "first_kept_seq": checkpoint.first_kept_seq,
        "mission": [line for line in mission if line.startswith("- ")],
        "user_words": [m.seq for m in checkpoint.memo if m.checked],
        "kept_inputs": list(checkpoint.kept_inputs),
        "mind_tokens": estimate(checkpoint.mind),
        "now_tokens": estimate(checkpoint.now),
        "tokens_before": checkpoint.tokens_before,
        "tokens_after": checkpoint.tokens_after,
    }


def force(engine: Any, session_id: str, workdir: Path) -> dict[str, Any]:
    """Take one checkpoint now, with the system prompt and tools `vybe chat` would send."""
    record: Record = engine.record
    require_rows(record, check_session_id(session_id))
    system, tools = conversation_frame(workdir)
    attempt = engine.checkpoint_now(session_id, system, tools)
    checkpoint = record.latest_checkpoint(session_id) if attempt.outcome == "accepted" else None
    return {
        "session_id": session_id,
        "attempt": attempt._asdict(),
        "kept": kept(checkpoint) if checkpoint else None,
    }
