"""Import a Codex rollout (.jsonl) into the record, from where the last import ended.

Each line is ``{"timestamp", "type", "payload"}`` (docs/integrations.md). The person's
words come only from ``event_msg`` ``user_message`` items, or (0.171) ``item_completed``
events of a ``UserMessage`` item, one prompt taken once: Codex also puts its environment
context, AGENTS.md text and other instructions in ``user``-role ``message`` items, and the
prompt itself is there a second time, so those items are never taken as typed. Assistant
``message`` items and the tool calls that follow them (``function_call``,
``custom_tool_call``, ``local_shell_call``) become ``assistant`` rows, each call's output a
``tool`` row. The summary a compaction writes as an assistant message just before its
``compacted`` line is a ``harness`` row (not the agent's words). Skipped: reasoning,
developer messages, turn context, other events, and any line type this does not know.
Rollouts older than the ``payload`` wrapper (Codex before 0.3x) import nothing.

Rows carry ``data.codex_import`` = {rollout id, byte offset}; see ``transcript_import``.
"""

from __future__ import annotations

from vybe import jsonio
from vybe.context.labels import Dispatch
from vybe.integrations.hooks.hook import exit_code
from vybe.integrations.importers.transcript_import import (
    Builder,
    Call,
    Compaction,
    first_field,
    import_file,
    source_time,
    stem,
)

TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    from vybe.context.record import Record
    from vybe.integrations.importers.transcript_import import Budget, ImportResult

STAMP = "codex_import"
CALLS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")
TYPED_KINDS = (None, "plain")  # user_message kinds older releases set on injected context


def typed_words(event: dict[str, Any]) -> str | None:
    """What the person typed, from a ``user_message`` event, or None when it holds none."""
    if event.get("kind") not in TYPED_KINDS:
        return None
    text = event.get("message")
    if isinstance(text, str) and text.strip():
        return text
    return "[image]" if event.get("images") or event.get("local_images") else None


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [c.get("text") for c in content or () if isinstance(c, dict)]
    return "".join(p for p in parts if isinstance(p, str))


def _arguments(item: dict[str, Any]) -> dict[str, Any]:
    if item["type"] == "local_shell_call":
        action = item.get("action")
        return action if isinstance(action, dict) else {}
    if item["type"] == "custom_tool_call":
        return {"input": item.get("input", "")}
    raw = item.get("arguments")
    try:
        parsed = jsonio.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        parsed = None
    return parsed if isinstance(parsed, dict) else {"arguments": raw}


def tool_call(item: dict[str, Any]) -> Call:
    """A call item as the record keeps calls; a shell call without a name is ``shell``."""
    call_id = item.get("call_id") or item.get("id") or ""
    return Call(str(call_id), str(item.get("name") or "shell"), _arguments(item))


def output(raw: Any) -> tuple[str, bool]:
    """A call's output text, and whether it failed (a non-zero exit, ``success`` false)."""
    if isinstance(raw, dict):
        text = _texts(raw.get("content"))
        return text, raw.get("success") is False or exit_code(raw) not in (None, 0)
    text = _texts(raw)
    try:
        wrapped = jsonio.loads(text) if text.startswith("{") else None
    except ValueError:
        wrapped = None
    if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
        code = exit_code(wrapped.get("metadata") or {})
        return wrapped["output"], code not in (None, 0)
    return text, exit_code(text) not in (None, 0)


COMPACTION = Dispatch("compaction", "codex", "Codex's summary of the conversation so far")


def completed_words(event: dict[str, Any]) -> str | None:
    """What the person typed, from a 0.171 ``item_completed`` UserMessage event."""
    item = event.get("item")
    if not isinstance(item, dict) or item.get("type") != "UserMessage":
        return None
    text = _texts(item.get("content"))
    return text if text.strip() else None


def compaction(data: dict[str, Any]) -> Compaction:
    """A ``compacted`` line: when, and the person's messages Codex kept (its replacement
    history's user texts). The rollout names no trigger."""
    from vybe.integrations.hooks.compaction import replaced_users

    payload = data.get("payload")
    kept = replaced_users(payload) if isinstance(payload, dict) else []
    at = source_time(data.get("timestamp"))
    return Compaction(f"codex:{at}", "codex", "unknown", None, None, at, tuple(kept))


class _Importer(Builder):
    """Each assistant message starts a reply; the calls after it belong to that reply.

    Since 0.171 a reply's message comes after an ``item_completed`` AgentMessage event; an
    assistant message with none, followed by a ``compacted`` line, is the harness's summary."""

    last_typed: str | None = None  # one prompt can come as user_message and as UserMessage
    announced: bool = False  # an AgentMessage event came since the last assistant message

    def line(self, data: dict[str, Any]) -> None:
        payload = data.get("payload")
        if data.get("type") == "compacted":
            self.compacted()
            self.result.compactions.append(compaction(data))
        if not isinstance(payload, dict):
            return
        if data.get("type") == "event_msg":
            self.event(payload)
        elif data.get("type") == "response_item":
            self.item(payload)

    def event(self, payload: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "user_message":
            words = typed_words(payload)
        elif kind == "item_completed":
            item = payload.get("item")
            self.announced |= isinstance(item, dict) and item.get("type") == "AgentMessage"
            words = completed_words(payload)
        else:
            return
        if words is not None and words != self.last_typed:
            self.last_typed = words
            self.person(words)

    def compacted(self) -> None:
        """The summary Codex wrote as an assistant message just before: the harness's."""
        if self.summary is not None and self.text and self.text[-1] == self.summary:
            self.text.pop()
            self.harness(COMPACTION, self.summary)
        self.summary = None

    summary: str | None = None  # the last assistant message no AgentMessage event announced

    def item(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if kind == "message" and item.get("role") == "assistant":
            text = _texts(item.get("content"))
            if text.strip():
                self.flush()
                self.close_calls()
                self.text.append(text)
                self.last_typed = None
                self.summary = None if self.announced else text
                self.announced = False
        elif kind in CALLS:
            self.calls.append(tool_call(item))
            self.last_typed = self.summary = None
        elif kind in OUTPUTS:
            self.answer(item.get("call_id"), *output(item.get("output")))


def rollout_id(path: str | PathLike) -> str:
    """The Codex session (thread) id of a rollout: its ``session_meta``, else its file name."""

    def meta_id(line: dict[str, Any]) -> Any:
        payload = line.get("payload")
        if line.get("type") == "session_meta" and isinstance(payload, dict):
            return payload.get("id")
        return None

    return first_field(path, meta_id) or stem(path)


def import_rollout(
    record: Record,
    session_id: str,
    path: str | PathLike,
    offset: int | None = None,
    budget: Budget | None = None,
) -> ImportResult:
    """Append the rollout's new lines to ``session_id``; ``offset`` None resumes."""
    return import_file(
        record,
        session_id,
        path,
        offset,
        key=STAMP,
        transcript=rollout_id,
        builder=_Importer,
        budget=budget,
    )
