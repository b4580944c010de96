"""Appending a session's inputs and replies to the record, each with its token estimate."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from vybe.context.budget import estimate, message_tokens
from vybe.context.labels import Dispatch, harness_text, source_label, user_text
from vybe.context.record import Appends, MessageRow, check_session_id
from vybe.llm.base import Message, Reply, ToolCall


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


def record_assistant(
    record: Appends,
    session_id: str,
    reply: Reply,
    request_tokens: int | None = None,
    checkpoint_id: int | None = None,
) -> MessageRow:
    """A reply; with the request's estimate and reported usage it anchors later estimates."""
    data: dict[str, Any] = {}
    if reply.tool_calls:
        data["tool_calls"] = [asdict(c) for c in reply.tool_calls]
    if reply.usage is not None and request_tokens is not None:
        data["usage"] = asdict(reply.usage)
        data["request"] = {"tokens": request_tokens, "checkpoint_id": checkpoint_id}
    tokens = message_tokens(Message("assistant", reply.text, reply.tool_calls))
    return _append(
        record,
        MessageRow(
            session_id, 0, "assistant", reply.text, source="assistant", data=data, tokens=tokens
        ),
    )


def record_tool(
    record: Appends,
    session_id: str,
    call: ToolCall,
    output: str,
    *,
    is_error: bool = False,
    skill: str | None = None,
) -> MessageRow:
    """The result of one tool call; ``skill`` names a skill whose text this output loaded."""
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
