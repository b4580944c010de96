"""Appending a session's inputs and replies to the record, each with its token estimate.

Stdlib only (no dataclasses, no typing, no model types): a hook's transcript import records
through these. A call is anything with ``id``, ``name`` and ``arguments``; a reply anything
with ``text``, ``tool_calls`` and ``usage``.
"""

from __future__ import annotations

from vybe.config import excluded_tools
from vybe.context.labels import harness_text, source_label, user_text
from vybe.context.tokens import estimate, reply_tokens
from vybe.context.types import MessageRow, check_session_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Protocol

    from vybe.context.labels import Dispatch
    from vybe.context.record import Appends
    from vybe.llm.base import Reply

    class ToolCall(Protocol):
        """A tool call: the model's ``ToolCall``, or what a transcript import gathers."""

        @property
        def id(self) -> str: ...
        @property
        def name(self) -> str: ...
        @property
        def arguments(self) -> dict[str, Any]: ...

    from vybe.jsonio import JSONObject


# What the record keeps of an excluded tool's output (privacy.exclude_tools).
NOT_RECORDED = "[not recorded: privacy.exclude_tools]"


def unanswered(rows: list[MessageRow]) -> list[JSONObject]:
    """The calls (as the row holds them: id, name, arguments) of the last reply that have no
    result row after it, in call order."""
    for index in range(len(rows) - 1, -1, -1):
        if rows[index].type == "assistant":
            answered = {r.data.get("tool_call_id") for r in rows[index + 1 :] if r.type == "tool"}
            calls = rows[index].data.get("tool_calls", ())
            return [c for c in calls if c["id"] not in answered]
    return []


def _append(record: Appends, row: MessageRow) -> MessageRow:
    check_session_id(row.session_id)
    return record.append(row)


def record_user(record: Appends, session_id: str, text: str, author: str = "user") -> MessageRow:
    """A message a person typed; a forged source line gets the author's name before it."""
    body = user_text(author, text)
    return _append(
        record, MessageRow(session_id, 0, "user", body, source=author, tokens=estimate(body))
    )


def record_harness(record: Appends, session_id: str, dispatch: Dispatch, text: str) -> MessageRow:
    """An input no person typed (a watch, task, callback or agent run), with its source line."""
    body = harness_text(dispatch, text)
    data = {"dispatch": dispatch._asdict()}
    return _append(
        record,
        MessageRow(
            session_id,
            0,
            "harness",
            body,
            source=source_label(dispatch),
            data=data,
            tokens=estimate(body),
        ),
    )


def record_reply(
    record: Appends,
    session_id: str,
    text: str,
    calls: Sequence[ToolCall],
    data: JSONObject | None = None,
) -> MessageRow:
    """A reply's text and tool calls (``data`` adds to what the row carries); a call of a
    tool privacy.exclude_tools names keeps its id and name, not its arguments."""
    excluded = excluded_tools()
    listed = [
        {"id": c.id, "name": c.name, "arguments": {} if c.name in excluded else c.arguments}
        for c in calls
    ]
    data = {"tool_calls": listed, **(data or {})} if listed else dict(data or {})
    return _append(
        record,
        MessageRow(
            session_id,
            0,
            "assistant",
            text,
            source="assistant",
            data=data,
            tokens=reply_tokens(text, [c for c in calls if c.name not in excluded]),
        ),
    )


def record_assistant(
    record: Appends,
    session_id: str,
    reply: Reply,
    request_tokens: int | None = None,
    checkpoint_id: int | None = None,
) -> MessageRow:
    """A reply; with the request's estimate and reported usage it anchors later estimates."""
    data: dict[str, Any] = {}
    if reply.usage is not None and request_tokens is not None:
        from dataclasses import asdict  # a model's reply: the engine has it loaded

        data["usage"] = asdict(reply.usage)
        data["request"] = {"tokens": request_tokens, "checkpoint_id": checkpoint_id}
    return record_reply(record, session_id, reply.text, reply.tool_calls, data)


def record_tool(
    record: Appends,
    session_id: str,
    call: ToolCall,
    output: str,
    *,
    is_error: bool = False,
    skill: str | None = None,
) -> MessageRow:
    """The result of one tool call; ``skill`` names a skill whose text this output loaded.
    The output of a tool privacy.exclude_tools names is NOT_RECORDED instead."""
    if call.name in excluded_tools():
        output = NOT_RECORDED
    data: dict[str, Any] = {"tool_call_id": call.id, "name": call.name}
    if is_error:
        data["is_error"] = True
    if skill:
        data["skill"] = skill
    return _append(
        record,
        MessageRow(
            session_id, 0, "tool", output, source=call.name, data=data, tokens=estimate(output)
        ),
    )
