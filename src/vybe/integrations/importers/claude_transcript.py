"""Import a Claude Code transcript (.jsonl) into the record, from where the last import ended.

What a person typed becomes a ``user`` row, verbatim; a slash command becomes one only when
it has arguments (``/orchestrator build the TODO app``). Assistant text and tool calls become
``assistant`` rows (the blocks Claude Code writes on separate lines for one message are
joined), tool results ``tool`` rows. The summary Claude Code's own compaction wrote (the user
line marked ``isCompactSummary`` after its compact boundary) is a ``harness`` row, the
client's summary `vybe ui` shows beside what vybe gave back, as a Codex rollout's is.
Skipped: meta lines (expanded command templates, caveats), command output, interruption
markers and ``summary`` lines (not the person's words), thinking blocks, and subagent
(sidechain) threads.

Each imported row carries ``data.claude_import`` = {transcript session, byte offset after
its line}: the next import resumes there (``transcript_import`` holds what Codex shares).
"""

from __future__ import annotations

from vybe.context.labels import Dispatch
from vybe.integrations.importers.transcript_import import (
    Builder,
    Call,
    Compaction,
    first_field,
    import_file,
    source_time,
    stem,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    from vybe.context.record import Record
    from vybe.integrations.importers.transcript_import import Budget, ImportResult

STAMP = "claude_import"
COMPACTION = Dispatch("compaction", "claude", "Claude Code's summary of the conversation so far")
# Patterns, compiled (re is imported) only for a line that may hold one: most hold none.
INTERRUPTED = (r"^\[Request interrupted by user[^\]]*\]$", "[Request interrupted by user")
COMMAND = (r"<command-name>\s*(/?[^<\s]+)\s*</command-name>", "<command-name>")
COMMAND_ARGS = r"(?s)<command-args>(.*?)</command-args>"
NOT_TYPED = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "Caveat:",
)


def _search(pattern: tuple[str, str], text: str) -> Any:
    """``re.search`` for the pattern; re is not even imported for a text without its mark."""
    regex, mark = pattern
    if mark not in text:
        return None
    import re

    return re.search(regex, text)


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
    command = _search(COMMAND, text)
    if command:
        import re

        args = re.search(COMMAND_ARGS, text)
        words = args.group(1).strip() if args else ""
        name = command.group(1) if command.group(1).startswith("/") else "/" + command.group(1)
        return f"{name} {words}" if words else None
    if not stripped or stripped.startswith(NOT_TYPED) or _search(INTERRUPTED, stripped):
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
            self.after_boundary(data)
            self.assistant(data.get("message") or {})
        elif kind == "user":
            self.user(data)
        elif data.get("subtype") == "compact_boundary":
            from vybe.integrations.hooks.compaction import boundary_tokens

            tokens = boundary_tokens(data)
            if tokens is not None:
                self.result.boundary = (*tokens, str(data.get("timestamp") or ""))
                at = source_time(data.get("timestamp"))
                trigger = data["compactMetadata"].get("trigger")
                self.result.compactions.append(
                    Compaction(
                        f"claude:{data.get('uuid') or at}",
                        "claude",
                        trigger if trigger in ("auto", "manual") else "unknown",
                        *tokens,
                        at,
                    )
                )

    def after_boundary(self, data: dict[str, Any]) -> None:
        """A boundary without ``postTokens`` left what the first reply after it sent."""
        boundary = self.result.boundary
        if boundary is not None and boundary[1] is None:
            from vybe.integrations.hooks.compaction import claude_sent

            sent = claude_sent(data)
            if sent is not None:
                self.result.boundary = (boundary[0], sent, boundary[2])
                last = self.result.compactions[-1]
                self.result.compactions[-1] = last._replace(tokens_after=sent)

    def assistant(self, message: dict[str, Any]) -> None:
        if message.get("id") != self.pending_id:
            self.flush()
            self.close_calls()
            self.pending_id = message.get("id")
        for block in message.get("content") or ():
            if block.get("type") == "text" and block.get("text", "").strip():
                self.text.append(block["text"])
            elif block.get("type") == "tool_use":
                self.calls.append(Call(block["id"], block["name"], block.get("input") or {}))

    def user(self, data: dict[str, Any]) -> None:
        content = data.get("message", {}).get("content")
        if data.get("isCompactSummary"):
            summary = _text_blocks(content)
            if summary.strip():
                self.harness(COMPACTION, summary)
            return
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


def transcript_id(path: str | PathLike[str]) -> str:
    """The Claude session id a transcript belongs to (from its lines, else its file name)."""
    return first_field(path, lambda line: line.get("sessionId")) or stem(path)


def import_transcript(
    record: Record,
    session_id: str,
    path: str | PathLike[str],
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
