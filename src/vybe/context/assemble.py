"""The request after a checkpoint: system prompt, recollection, kept inputs, recent messages.

A session's context is a pure function of its rows and its latest checkpoint: ``load`` reads
them, ``assemble`` builds the exact request, with no model call and no write.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from vybe.context import memo, mind, now
from vybe.context.budget import (
    Budget,
    cut,
    estimate,
    message_tokens,
    request_tokens,
    tools_tokens,
)
from vybe.context.projection import to_message
from vybe.context.protocol import RECOLLECTION_CLOSE, RECOLLECTION_OPEN, USER_WORDS
from vybe.context.record import Checkpoint, MessageRow, Record
from vybe.llm.base import Message, Request, ToolSpec

FRAME_TAGS = ("context-checkpoint", "user-message", "skill")
# How the recollection's ready commands start: the engine's owner may name its own vybe
# (an absolute path, the agent it runs as).
VYBE = "vybe"
LEFT_SHOWN = 20
TRUNCATED = (
    "[Output truncated to fit the context window; the record keeps all of it: re-run the "
    "tool with a narrower request, or read it with vybe data query.]"
)


@dataclass
class View:
    """What a session's context is made of right now."""

    session_id: str
    checkpoint: Checkpoint | None
    rows: list[MessageRow]
    extra: dict[int, MessageRow] = field(default_factory=dict)
    vybe: str = VYBE  # how the recollection's commands start
    converted: list[Message] = field(default_factory=list, init=False, repr=False, compare=False)
    remembered: tuple[Budget, str] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    answered: MessageRow | None = field(default=None, init=False, repr=False, compare=False)
    scanned: int = field(default=0, init=False, repr=False, compare=False)

    def row_messages(self) -> list[Message]:
        """The rows as model messages, converted once per view."""
        if len(self.converted) != len(self.rows):
            self.converted = [to_message(r) for r in self.rows]
        return self.converted

    def extended(self, new: list[MessageRow]) -> View:
        """The same view with rows appended since; earlier conversions are reused."""
        view = View(self.session_id, self.checkpoint, self.rows + new, self.extra, self.vybe)
        view.converted = self.row_messages() + [to_message(r) for r in new]
        view.remembered = self.remembered
        view.answered, view.scanned = self.answered, self.scanned
        return view

    def newest_answered(self) -> MessageRow | None:
        """The newest reply carrying its request's facts and usage (the estimate's anchor);
        only rows not looked at before are looked at."""
        for row in reversed(self.rows[self.scanned :]):
            if row.type == "assistant" and row.data.get("request") and row.data.get("usage"):
                self.answered = row
                break
        self.scanned = len(self.rows)
        return self.answered

    def recollection(self, budget: Budget) -> str:
        """The checkpoint as this view shows it, built once per budget: it changes only with
        the checkpoint, and the view changes with it."""
        if self.remembered is None or self.remembered[0] != budget:
            self.remembered = (budget, recollection(self, budget))
        return self.remembered[1]

    @property
    def kept_inputs(self) -> list[MessageRow]:
        if self.checkpoint is None:
            return []
        return [self.extra[s] for s in self.checkpoint.kept_inputs if s in self.extra]


def load(
    record: Record, session_id: str, checkpoint: Checkpoint | None = None, vybe: str = VYBE
) -> View:
    """The latest checkpoint (or the one given), the rows after it, and the rows it refers to;
    ``vybe`` starts the commands the recollection hands the agent."""
    checkpoint = checkpoint or record.latest_checkpoint(session_id)
    if checkpoint is None:
        return View(session_id, None, record.messages(session_id), vybe=vybe)
    wanted = {m.seq for m in checkpoint.memo if m.checked} | set(checkpoint.kept_inputs)
    wanted |= {s["seq"] for s in checkpoint.skills}
    extra = {r.seq: r for r in record.messages_at(session_id, wanted)}
    rows = record.messages(session_id, checkpoint.first_kept_seq)
    return View(session_id, checkpoint, rows, extra, vybe)


def _escape(text: str) -> str:
    """Model or user text cannot open or close one of the recollection's frames."""
    for tag in FRAME_TAGS:
        text = text.replace(f"<{tag}", f"\\u003c{tag}").replace(f"</{tag}", f"\\u003c/{tag}")
    return text


def _sql_text(text: str) -> str:
    """``text`` as an SQL string literal, whatever quotes it holds."""
    return "'" + text.replace("'", "''") + "'"


def _data_query(sql: str, vybe: str = VYBE) -> str:
    """A command a shell runs exactly as shown, whatever quotes the SQL holds."""
    return f"{vybe} data query --sql " + shlex.quote(sql)


def record_query(session_id: str, to_seq: int, vybe: str = VYBE) -> str:
    """A ready command that lists the user's own messages of the earlier record."""
    return _data_query(
        "SELECT context_seq, created_at, substr(content_text,1,300) FROM messages"
        f" WHERE session_id={_sql_text(session_id)} AND type='user' AND context_seq <= {to_seq}"
        " ORDER BY context_seq LIMIT 50",
        vybe,
    )


def search_command(session_id: str, vybe: str = VYBE) -> str:
    """A ready command that searches this session's record (the words left to fill in)."""
    return f"{vybe} search '<words>' --session-id " + shlex.quote(session_id)


def _checkpoint_query(column: str, session_id: str, to_seq: int, vybe: str = VYBE) -> str:
    return _data_query(
        f"SELECT {column} FROM checkpoints WHERE session_id={_sql_text(session_id)}"
        f" AND summarized_to_seq={to_seq} ORDER BY id DESC LIMIT 1",
        vybe,
    )


def _words(view: View, budget: Budget) -> str:
    cp = view.checkpoint
    assert cp is not None
    texts = [(m.seq, view.extra[m.seq].text) for m in cp.memo if m.checked and m.seq in view.extra]
    kept, left = memo.fit(texts, budget.memo_per_message, budget.memo_total)
    parts = [
        USER_WORDS,
        "Copied from the record, never retyped; each number is the message's number there.",
    ]
    parts += [f'<user-message number="{k.seq}">\n{_escape(k.text)}\n</user-message>' for k in kept]
    if left:
        shown = ", ".join(f"#{s}" for s in left[-LEFT_SHOWN:])
        more = f" and {len(left) - LEFT_SHOWN} earlier ones" if len(left) > LEFT_SHOWN else ""
        parts.append(f"Also kept, in the record only: {shown}{more}")
    if not kept and not left:
        parts.append("(none)")
    return "\n".join(parts)


def _files(files: dict) -> str:
    lines = ["# 7. Files"]
    for key, title in (
        ("modified", "Modified, most recent first:"),
        ("read", "Read, most recent first:"),
    ):
        paths = files.get(key, [])
        lines.append(title)
        lines += [f"- {p}" for p in paths] or ["(none)"]
        if files.get(f"{key}_omitted"):
            lines.append("- and earlier ones (see the record)")
    return "\n".join(lines)


def _skills(view: View, budget: Budget) -> str:
    cp = view.checkpoint
    assert cp is not None
    blocks, total = [], 0
    for skill in cp.skills:
        row = view.extra.get(skill["seq"])
        if row is None:
            continue
        text = (
            row.text
            if estimate(row.text) <= budget.skill_each
            else (
                cut(row.text, budget.skill_each)
                + "\n[cut short: load the skill again for all of it]"
            )
        )
        if total + estimate(text) > budget.skills_total:
            continue
        total += estimate(text)
        blocks.append(f'<skill name="{skill["name"]}">\n{_escape(text)}\n</skill>')
    if not blocks:
        return ""
    return (
        "# 8. Skills\nThe skills you were using, as they were loaded, most recent first.\n"
        + "\n".join(blocks)
    )


def recollection(view: View, budget: Budget) -> str:
    """The checkpoint framed as the agent's own memory, with the user's words from the record."""
    cp = view.checkpoint
    assert cp is not None
    sid, to, vybe = view.session_id, cp.summarized_to_seq, view.vybe
    whole_mind = _checkpoint_query("mind", sid, to, vybe)
    shown_mind, was_cut = mind.shown(cp.mind, budget, whole_mind) if cp.mind else ("", False)
    parts = [
        RECOLLECTION_OPEN,
        f"This is your own recollection of the earlier part of this conversation, messages #1 "
        f"to #{to}, consolidated by you at a checkpoint so that you can continue. It is memory, "
        "not new instructions: the user's words and the agreements in it still apply.",
        _escape(shown_mind) or "(no mind yet)",
        _words(view, budget),
        _escape(now.shown(cp.now, budget.now_max, _checkpoint_query("now", sid, to, vybe)))
        or "# 6. Now\n(none)",
        _files(cp.files),
        _skills(view, budget),
        "# 9. The full record\nEvery earlier message of this session, the user's, yours and "
        f"the tools' outputs, is in the vybe record, session {sid}, messages #1 to #{to} by "
        "context_seq; a number in the user's words is such a message. Read the user's own "
        f"messages first:\n{record_query(sid, to, vybe)}\nSearch it for a detail this "
        'recollection let go (words, a "phrase", a prefix*, or a path, id or error text '
        f"exactly as written):\n{search_command(sid, vybe)}"
        + (f"\nThe whole mind: {whole_mind}" if was_cut else ""),
    ]
    if view.kept_inputs:
        parts.append(
            "The user messages right after this recollection belong to the turn still in "
            "progress: they are the current request. Follow them exactly as written; where this "
            "recollection disagrees with them, they win."
        )
    parts.append(RECOLLECTION_CLOSE)
    return "\n\n".join(p for p in parts if p)


def messages(view: View, budget: Budget, newest_cap: int | None = None) -> list[Message]:
    """The conversation of the next request; ``newest_cap`` cuts the newest tool outputs."""
    out: list[Message] = []
    if view.checkpoint is not None:
        out.append(Message("user", view.recollection(budget)))
        out += [to_message(r) for r in view.kept_inputs]
    out += view.row_messages()
    if newest_cap is not None:
        index = len(out)
        while index > 0 and out[index - 1].role == "tool":
            index -= 1
        for i in range(index, len(out)):
            if estimate(out[i].content) > newest_cap:
                shown = cut(out[i].content, max(newest_cap - estimate(TRUNCATED), 0))
                out[i] = Message("tool", f"{shown}\n{TRUNCATED}", tool_call_id=out[i].tool_call_id)
    return out


def build(
    view: View,
    budget: Budget,
    system: str,
    tools: tuple[ToolSpec, ...],
    newest_cap: int | None = None,
) -> tuple[Request, int]:
    """The exact request to send, and its estimate in tokens (rows use their stored one)."""
    out = messages(view, budget, newest_cap)
    request = Request(system, tuple(out), tools, budget.reply_reserve)
    if newest_cap is not None:
        return request, request_tokens(request)
    head = len(out) - len(view.rows)
    rows = sum(r.tokens or message_tokens(m) for r, m in zip(view.rows, out[head:], strict=True))
    fixed = estimate(system) + tools_tokens(tools)
    return request, fixed + sum(message_tokens(m) for m in out[:head]) + rows
