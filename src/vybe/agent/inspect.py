"""What a session holds, for people: its checkpoint, the words it keeps, the next request."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from vybe.agent.prompt import system_prompt
from vybe.agent.shell import BashPermission
from vybe.agent.skills import discover
from vybe.agent.tools import Toolbox
from vybe.context.record import Record
from vybe.errors import NotFound
from vybe.llm.base import ToolSpec
from vybe.llm.models import ModelInfo


def require_rows(record: Record, session_id: str) -> list[Any]:
    rows = record.messages(session_id)
    if not rows:
        raise NotFound(
            f"no session {session_id!r} in the record",
            context={"entity": "session", "id": session_id},
            suggested_action="run `vybe session list` to see session ids",
        )
    return rows


def show(record: Record, session_id: str) -> dict[str, Any]:
    """The latest MIND, MEMO with full texts, NOW, stats, and every checkpoint attempt."""
    rows = require_rows(record, session_id)
    checkpoint = record.latest_checkpoint(session_id)
    stats = {
        "messages": len(rows),
        "by_type": dict(Counter(r.type for r in rows)),
        "tokens": sum(r.tokens for r in rows),
        "first_at": rows[0].created_at,
        "last_at": rows[-1].created_at,
    }
    latest = None
    if checkpoint is not None:
        kept = [m.seq for m in checkpoint.memo if m.checked]
        texts = {r.seq: r.text for r in record.messages_at(session_id, kept)}
        latest = {
            "id": checkpoint.id,
            "mode": checkpoint.mode,
            "created_at": checkpoint.created_at,
            "summarized_to_seq": checkpoint.summarized_to_seq,
            "first_kept_seq": checkpoint.first_kept_seq,
            "tokens_before": checkpoint.tokens_before,
            "tokens_after": checkpoint.tokens_after,
            "mind": checkpoint.mind,
            "memo": [{"seq": s, "text": texts.get(s, "")} for s in kept],
            "now": checkpoint.now,
        }
    attempts = [a._asdict() for a in record.attempts(session_id)]
    return {"session_id": session_id, "stats": stats, "checkpoint": latest, "attempts": attempts}


def conversation_frame(workdir: Path) -> tuple[str, tuple[ToolSpec, ...]]:
    """The system prompt and tool list a `vybe chat` turn in ``workdir`` sends."""
    from vybe.agent import tasks as task_tools

    found = discover(workdir)
    # the specs only: vybe's own operations are offered whatever store a turn runs on
    toolbox = Toolbox(workdir, found, BashPermission(), tasks=task_tools)
    return system_prompt(workdir, found), toolbox.specs()


def next_request(
    record: Record, session_id: str, info: ModelInfo, workdir: Path, limits: Any
) -> dict[str, Any]:
    """The exact next request, in the provider's wire format, with no model call."""
    from vybe.context import assemble
    from vybe.context.budget import compute

    require_rows(record, session_id)
    budget = compute(limits)
    view = assemble.load(record, session_id)
    request, tokens = assemble.build(view, budget, *conversation_frame(workdir))
    if info.provider == "anthropic":
        from vybe.llm.anthropic import payload as wire

        body = wire(info.wire_name, request)
    else:
        from vybe.llm.openai_compat import payload

        body = payload(info.wire_name, request, "max_tokens")
    return {
        "session_id": session_id,
        "provider": info.provider,
        "tokens": tokens,
        "threshold": budget.threshold,
        "checkpoint_due": budget.due(tokens),
        "request": body,
    }
