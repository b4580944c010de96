"""Import a Claude Code transcript (.jsonl) into the record, from where the last import ended.

What a person typed becomes a ``user`` row, verbatim; a slash command becomes one only when
it has arguments (``/orchestrator build the TODO app``). Assistant text and tool calls become
``assistant`` rows (the blocks Claude Code writes on separate lines for one message are
joined), tool results ``tool`` rows. Skipped: meta lines (expanded command templates,
caveats), command output, interruption markers, compact summaries and ``summary`` lines
(not the person's words), thinking blocks, and subagent (sidechain) threads.

Each imported row carries ``data.claude_import`` = {transcript session, byte offset after
its line}, so the next import of the same file starts after the last line imported, and an
unfinished last line (no newline yet) is left for next time.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vybe.agent.pending import unanswered_calls
from vybe.context.record import MessageRow, Record
from vybe.context.recorder import record_assistant, record_tool, record_user
from vybe.errors import InvalidInput, NotFound
from vybe.llm.base import Reply, ToolCall

STAMP = "claude_import"
INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]$")
COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
NOT_TYPED = ("<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "Caveat:")
NO_RESULT = "(no result was recorded: the call was interrupted)"


@dataclass
class ImportResult:
    """What one import added, and where the next one starts."""

    session_id: str
    offset: int
    lines: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"user": 0, "assistant": 0, "tool": 0})


class _Stamped:
    """A record whose appended rows remember the transcript line they came from."""

    def __init__(self, record: Record, transcript: str) -> None:
        self.record = record
        self.stamp: dict[str, Any] = {"transcript": transcript, "offset": 0}

    def append(self, message: MessageRow) -> MessageRow:
        return self.record.append(replace(message, data={**message.data, STAMP: {**self.stamp}}))


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


class _Importer:
    """Turns transcript lines into rows, joining one message's blocks into one reply."""

    def __init__(self, record: _Stamped, session_id: str, result: ImportResult) -> None:
        self.record, self.session_id, self.result = record, session_id, result
        self.pending_id: str | None = None
        self.text: list[str] = []
        self.calls: list[ToolCall] = []
        self.unanswered: dict[str, ToolCall] = {}

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
        if results:
            self.flush()
            for block in results:
                call = self.unanswered.pop(block.get("tool_use_id"), None)
                if call is not None:
                    self.tool(call, _result_text(block), bool(block.get("is_error")))
            return
        words = typed_text(data)
        if words is not None:
            self.flush()
            self.close_calls()
            record_user(self.record, self.session_id, words)
            self.result.counts["user"] += 1

    def tool(self, call: ToolCall, output: str, is_error: bool) -> None:
        record_tool(self.record, self.session_id, call, output, is_error=is_error)
        self.result.counts["tool"] += 1

    def flush(self) -> None:
        """Append the reply being gathered, if any."""
        if self.text or self.calls:
            reply = Reply("\n\n".join(self.text), tuple(self.calls))
            record_assistant(self.record, self.session_id, reply)
            self.result.counts["assistant"] += 1
            self.unanswered.update({c.id: c for c in self.calls})
        self.pending_id, self.text, self.calls = None, [], []

    def close_calls(self) -> None:
        """Calls that never got a result get a note, so every call is answered in the record."""
        for call in list(self.unanswered.values()):
            self.tool(call, NO_RESULT, True)
        self.unanswered.clear()


def last_offset(rows: list[MessageRow], transcript: str) -> int:
    """Where the previous import of this transcript into these rows ended (0 if none)."""
    for row in reversed(rows):
        stamp = row.data.get(STAMP)
        if stamp and stamp.get("transcript") == transcript:
            return int(stamp["offset"])
    return 0


def transcript_id(path: Path) -> str:
    """The Claude session id a transcript belongs to (from its lines, else its file name)."""
    with path.open(encoding="utf-8") as handle:
        for raw in handle:
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict) and line.get("sessionId"):
                return str(line["sessionId"])
    return path.stem


def import_transcript(
    record: Record, session_id: str, path: Path, offset: int | None = None
) -> ImportResult:
    """Append the transcript's new lines to ``session_id``; ``offset`` None resumes."""
    if not path.is_file():
        raise NotFound(f"no transcript at {path}", context={"path": str(path)})
    transcript = transcript_id(path)
    rows = record.messages(session_id)
    start = last_offset(rows, transcript) if offset is None else offset
    stamped = _Stamped(record, transcript)
    result = ImportResult(session_id, start)
    importer = _Importer(stamped, session_id, result)
    importer.unanswered = {c.id: c for c in unanswered_calls(rows)}
    with path.open("rb") as handle:
        handle.seek(start)
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            stamped.stamp["offset"] = result.offset = result.offset + len(raw)
            result.lines += 1
            try:
                data = json.loads(raw)
            except ValueError:
                raise InvalidInput(
                    f"{path}: the line at byte {result.offset - len(raw)} is not JSON"
                ) from None
            if isinstance(data, dict):
                importer.line(data)
    importer.flush()
    return result
