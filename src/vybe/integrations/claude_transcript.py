"""Import a Claude Code transcript (.jsonl) into the record, from where the last import ended.

What a person typed becomes a ``user`` row, verbatim; a slash command becomes one only when
it has arguments (``/orchestrator build the TODO app``). Assistant text and tool calls become
``assistant`` rows (the blocks Claude Code writes on separate lines for one message are
joined), tool results ``tool`` rows. Skipped: meta lines (expanded command templates,
caveats), command output, interruption markers, compact summaries and ``summary`` lines
(not the person's words), thinking blocks, and subagent (sidechain) threads.

Each imported row carries ``data.claude_import`` = {transcript session, byte offset after
its line}: the next import resumes there (``transcript_import`` holds what Codex shares).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from vybe.context.record import Record
from vybe.integrations.transcript_import import (
    Budget,
    Builder,
    ImportResult,
    first_field,
    import_file,
)
from vybe.llm.base import ToolCall

STAMP = "claude_import"
INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
NOT_TYPED = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "Caveat:")


def _text_blocks(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or ():
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def typed_text(line: dict[str, Any]) -> str | None:
    """The words a person typed on this user line, or None when it holds none."""
    if line.get("isMeta") or line.get("isCompactSummary") or line.get("isSidechain"):
        return None
    content = line.get("message", {}).get("content")
    if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
        return None
    text = _text_blocks(content)
    stripped = text.strip()
    command = COMMAND.search(text)
    if command:
        args = COMMAND_ARGS.search(text)
        words = args.group(1).strip() if args else ""
        name = command.group(1) if command.group(1).startswith("/") else "/" + command.group(1)
        return f"{name} {words}" if words else None
    if not stripped or stripped.startswith(NOT_TYPED) or INTERRUPTED.match(stripped):
        return None
    return text


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else _text_blocks(content)


class _Importer(Builder):
    """Claude Code writes one message's blocks on separate lines: they become one reply."""

    pending_id: str | None = None

    def line(self, data: dict[str, Any]) -> None:
        if data.get("isSidechain"):
            return
        kind = data.get("type")
        if kind == "assistant":
            self.assistant(data.get("message") or {})
        elif kind == "user":
            self.user(data)

    def assistant(self, message: dict[str, Any]) -> None:
        if message.get("id") != self.pending_id:
            self.flush()
            self.close_calls()
            self.pending_id = message.get("id")
        for block in message.get("content") or ():
            if block.get("type") == "text" and block.get("text", "").strip():
                self.text.append(block["text"])
            elif block.get("type") == "tool_use":
                self.calls.append(ToolCall(block["id"], block["name"], block.get("input") or {}))

    def user(self, data: dict[str, Any]) -> None:
        content = data.get("message", {}).get("content")
        results = [b for b in content or () if isinstance(content, list)]
        results = [b for b in results if b.get("type") == "tool_result"]
        for block in results:
            self.answer(block.get("tool_use_id"), _result_text(block), bool(block.get("is_error")))
        words = None if results else typed_text(data)
        if words is not None:
            self.person(words)

    def flush(self) -> None:
        super().flush()
        self.pending_id = None


def transcript_id(path: Path) -> str:
    """The Claude session id a transcript belongs to (from its lines, else its file name)."""
    return first_field(path, lambda line: line.get("sessionId")) or path.stem


def import_transcript(
    record: Record,
    session_id: str,
    path: Path,
    offset: int | None = None,
    budget: Budget | None = None,
) -> ImportResult:
    """Append the transcript's new lines to ``session_id``; ``offset`` None resumes."""
    return import_file(
        record,
        session_id,
        path,
        offset,
        key=STAMP,
        transcript=transcript_id,
        builder=_Importer,
        budget=budget,
    )
