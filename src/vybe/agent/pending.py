"""What a session still owes, read from its rows: unanswered calls, an unanswered input."""

from __future__ import annotations

from vybe.context.record import MessageRow
from vybe.context.recorder import unanswered
from vybe.llm.base import ToolCall


def unanswered_calls(rows: list[MessageRow]) -> list[ToolCall]:
    """The calls of the last reply that have no result row after it, in call order."""
    return [ToolCall(c["id"], c["name"], c["arguments"]) for c in unanswered(rows)]


def awaits_model(rows: list[MessageRow]) -> bool:
    """True unless the session is empty or its last row is a reply that called no tool."""
    if not rows:
        return False
    last = rows[-1]
    return not (last.type == "assistant" and not last.data.get("tool_calls"))
