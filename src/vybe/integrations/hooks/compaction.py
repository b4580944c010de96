"""A receipt for each compaction Claude Code, Codex or Gemini CLI does, as their hooks show it.

PreCompact opens the receipt: whose compaction, its trigger (``auto`` / ``manual``), and the
tokens before, from the payload or the transcript's newest usage. SessionStart(compact)
completes it: which of the person's messages vybe gave back verbatim or cut, which the
harness kept in its own context (Codex's ``replacement_history``; Claude keeps none), which
stay in the record only. Its one line (vybe.context.receipt, shared with the engine) goes
at the top of the context vybe gives back.

Standard library only: this runs inside the hooks.
"""

from __future__ import annotations

from vybe import jsonio
from vybe.integrations.hooks.hook import Hook
from vybe.store import receipts as receipt_rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from vybe.actions.user_words import Chosen
    from vybe.jsonio import JSONObject
    from vybe.store.record import MessageRow

TAIL_BYTES = 512 * 1024  # where a transcript's newest usage and compaction lines sit
TRIGGERS = ("auto", "manual")


def tail(path: str) -> list[str]:
    """The lines of the transcript's last TAIL_BYTES that may hold usage or a compaction,
    newest first, not parsed yet; [] when unreadable."""
    if not path:
        return []
    try:
        with open(path, "rb") as handle:
            start = max(0, handle.seek(0, 2) - TAIL_BYTES)
            handle.seek(start)
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    if start:
        lines = lines[1:]  # the first line read is the end of a longer one
    marks = ('"usage"', "token_count", "compact")
    return [line for line in reversed(lines) if any(m in line for m in marks)]


def _parsed(lines: list[str], needle: str) -> Iterator[JSONObject]:
    """The JSON objects of the lines holding ``needle``, parsed only as far as they are read
    (each question stops at its newest answer)."""
    for line in lines:
        if needle not in line:
            continue
        try:
            item = jsonio.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            yield item


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def claude_usage(lines: list[str]) -> int | None:
    """The context's size as the newest reply's usage says: input, cache writes and reads,
    output (what PreCompact sees: the compaction is about to start)."""
    for item in _parsed(lines, '"usage"'):
        sent = claude_sent(item)
        if sent is not None:
            return sent + _number(item["message"]["usage"].get("output_tokens"))
    return None


def claude_boundary(lines: list[str]) -> tuple[int | None, int | None]:
    """The ``preTokens`` and ``postTokens`` of the newest compaction boundary Claude wrote
    (SessionStart(compact) comes after it): its own counts of the context it compacted and
    of what the compaction left (Claude Code 2.1 writes both). A boundary without
    ``postTokens`` (older versions) left what the first reply after it was sent, as that
    reply's usage says (``lines`` are newest first)."""
    first_after = None
    for line in lines:
        for item in _parsed([line], "compact_boundary"):
            found = boundary_tokens(item)
            if found is not None:
                return found[0], found[1] or first_after
        for item in _parsed([line], '"usage"'):
            first_after = claude_sent(item) or first_after
    return None, None


def claude_sent(item: JSONObject) -> int | None:
    """What a Claude reply's request sent, as its usage says (input, cache writes and
    reads); None for a line that is no reply with a usage."""
    message = item.get("message")
    usage = message.get("usage") if isinstance(message, dict) else None
    if item.get("type") != "assistant" or not isinstance(usage, dict):
        return None
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    return sum(_number(usage.get(k)) for k in keys) or None


def boundary_tokens(item: JSONObject) -> tuple[int | None, int | None] | None:
    """A Claude transcript line's compaction counts, before and after; None: not a boundary."""
    meta = item.get("compactMetadata")
    if item.get("subtype") != "compact_boundary" or not isinstance(meta, dict):
        return None
    return _number(meta.get("preTokens")) or None, _number(meta.get("postTokens")) or None


def _last_total(item: JSONObject) -> int | None:
    """A Codex ``token_count`` event's last request, input and output (None: not one)."""
    payload = item.get("payload")
    if not isinstance(payload, dict) or payload.get("type") != "token_count":
        return None
    info = payload.get("info")
    last = info.get("last_token_usage") if isinstance(info, dict) else None
    return (_number(last.get("total_tokens")) or None) if isinstance(last, dict) else None


def codex_tokens(lines: list[str]) -> int | None:
    """The newest ``token_count`` event's last request, input and output."""
    for item in _parsed(lines, "token_count"):
        total = _last_total(item)
        if total is not None:
            return total
    return None


def codex_after(lines: list[str]) -> int | None:
    """The context's size after Codex's newest compaction: the first ``token_count`` event
    Codex writes after its ``compacted`` line (its last usage's total, what the compaction
    left; a later one counts a later request). None when there is none after it yet."""
    first = None
    for item in _parsed(lines, ""):  # newest first: the last one before the compaction wins
        if item.get("type") == "compacted":
            return first
        first = _last_total(item) or first
    return None


def codex_kept(lines: list[str]) -> set[str]:
    """The texts of the user messages Codex's newest compaction kept in its context."""
    for item in _parsed(lines, '"compacted"'):
        if item.get("type") == "compacted" and isinstance(item.get("payload"), dict):
            return set(replaced_users(item["payload"]))
    return set()


def replaced_users(payload: JSONObject) -> list[str]:
    """The texts of the user messages a ``compacted`` line's replacement history keeps."""
    return [
        part["text"].strip()
        for entry in payload.get("replacement_history") or ()
        if isinstance(entry, dict) and entry.get("role") == "user"
        for part in entry.get("content") or ()
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]


def tokens_before(hook: Hook) -> int | None:
    """The context's size as the transcript's newest usage says (Claude's, Codex's); None
    for Gemini CLI, whose hooks are told none."""
    if hook.target == "gemini":
        return None
    lines = tail(hook.text("transcript_path"))
    return claude_usage(lines) if hook.target == "claude" else codex_tokens(lines)


def opened(hook: Hook) -> None:
    """PreCompact (Gemini CLI's PreCompress): open this compaction's receipt."""
    trigger = hook.text("trigger")
    receipt_rows.open_receipt(
        hook.store,
        hook.record_session,
        hook.agent,
        hook.target,
        trigger if trigger in TRIGGERS else "unknown",
        tokens_before(hook),
        hook.once(),
        hook.project,
    )


def read_compaction(hook: Hook) -> tuple[list[str], set[str]]:
    """SessionStart(compact): the transcript's tail (``tail``) and the texts of the person's
    messages the harness kept in its own context (Codex's; Claude keeps none)."""
    lines = tail(hook.text("transcript_path"))
    return lines, codex_kept(lines) if hook.target == "codex" else set()


def given_back(
    hook: Hook, rows: list[MessageRow], chosen: list[Chosen], seen: tuple[list[str], set[str]]
) -> JSONObject:
    """SessionStart(compact): what became of each of the person's messages the choice read
    (``rows``: the first and the newest), on the receipt (``seen`` as ``read_compaction``
    gives it): the lists and the session's compactions (``receipts.complete``). The older
    ones are in the record only, uncounted here: listing every message of a long session
    made each compaction's hook cost grow with it."""
    lines, kept_texts = seen
    shown = {c.row.seq: c for c in chosen}
    lists: dict[str, list[int]] = {"verbatim": [], "kept": [], "cut": [], "released": []}
    for row in rows:
        if row.text.strip() in kept_texts:
            lists["kept"].append(row.seq)
        elif row.seq in shown:
            lists["cut" if shown[row.seq].cut else "verbatim"].append(row.seq)
        else:
            lists["released"].append(row.seq)
    before, after = (None, None)
    if hook.target == "claude":
        before, after = claude_boundary(lines)
    elif hook.target == "codex":
        after = codex_after(lines)
    return receipt_rows.complete(
        hook.store,
        hook.record_session,
        hook.agent,
        hook.target,
        lists,
        (before, after),
        hook.once(),
        hook.project,
    )
