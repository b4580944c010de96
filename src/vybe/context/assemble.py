"""The request after a checkpoint: system prompt, recollection, kept inputs, recent messages.

A session's context is a pure function of its rows and its latest checkpoint: ``load`` reads
them, ``assemble`` builds the exact request, with no model call and no write.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from vybe.context import memo, mind, now, receipt
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

FRAME_TAGS = ("context-checkpoint", "user-message", "skill")
# How the recollection's ready commands start: the engine's owner may name its own vybe
# (an absolute path, the agent it runs as).
VYBE = "vybe"
LEFT_SHOWN = 20
TRUNCATED = (
    "[Output truncated to fit the context window; the record keeps all of it: re-run the "
    "tool with a narrower request, or search the record for the part you need: {search}]"
)


@dataclass
class View:
    """What a session's context is made of right now."""

    session_id: str
    checkpoint: Checkpoint | None
    rows: list[MessageRow]
    extra: dict[int, MessageRow] = field(default_factory=dict)
    vybe: str = VYBE  # how the recollection's commands start
    compactions: int = 0  # the checkpoint's number among the session's (1 for the first)
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
        view = View(
            self.session_id,
            self.checkpoint,
            self.rows + new,
            self.extra,
            self.vybe,
            self.compactions,
        )
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
    made = [a.checkpoint_id for a in record.attempts(session_id) if a.checkpoint_id is not None]
    number = sum(1 for made_id in made if made_id <= checkpoint.id) or 1
    return View(session_id, checkpoint, rows, extra, vybe, number)


def _escape(text: str) -> str:
    """Model or user text cannot open or close one of the recollection's frames."""
    for tag in FRAME_TAGS:
        text = text.replace(f"<{tag}", f"\\u003c{tag}").replace(f"</{tag}", f"\\u003c/{tag}")
    return text


def search_command(session_id: str, vybe: str = VYBE, kind: str | None = None) -> str:
    """A ready command that searches this session's record (the words left to fill in),
    or only the ``kind`` of rows (``user``: the person's own messages)."""
    only = f" --type {kind}" if kind else ""
    return f"{vybe} search '<words>' --session-id " + shlex.quote(session_id) + only


def show_command(session_id: str, vybe: str = VYBE) -> str:
    """A ready command that shows the session's latest checkpoint whole (MIND, MEMO, NOW)."""
    return f"{vybe} session show " + shlex.quote(session_id)


def _kept_words(view: View, budget: Budget) -> tuple[list[memo.Kept], list[int]]:
    """The kept messages the recollection shows (within budget, the model's ticked ones
    first), and those it cannot."""
    cp = view.checkpoint
    assert cp is not None
    texts = [(m.seq, view.extra[m.seq].text) for m in cp.memo if m.checked and m.seq in view.extra]
    ticked = {m.seq for m in cp.memo if m.ticked}
    return memo.fit(texts, budget.memo_per_message, budget.memo_total, ticked)


def receipt_line(view: View, kept: list[memo.Kept], left: list[int]) -> str:
    """This checkpoint's receipt in one line: its number, the person's messages given back
    verbatim or cut, and those the checkpoint let go (still in the record)."""
    cp = view.checkpoint
    assert cp is not None
    released = [m.seq for m in cp.memo if not m.checked] + left
    lists = {
        "verbatim": [k.seq for k in kept if not k.cut],
        "cut": [k.seq for k in kept if k.cut],
        "kept": [],  # the rows after the checkpoint are in the context as they are
        "released": released,
    }
    return receipt.line(view.compactions, lists, "vybe")


def _words(kept: list[memo.Kept], left: list[int]) -> str:
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


def _files(files: JSONObject) -> str:
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
    whole = show_command(sid, vybe)
    shown_mind, was_cut = mind.shown(cp.mind, budget, whole) if cp.mind else ("", False)
    kept, left = _kept_words(view, budget)
    parts = [
        RECOLLECTION_OPEN,
        receipt_line(view, kept, left) + ".",
        f"This is your own recollection of the earlier part of this conversation, messages #1 "
        f"to #{to}, consolidated by you at a checkpoint so that you can continue. It is memory, "
        "not new instructions: the user's words and the agreements in it still apply.",
        _escape(shown_mind) or "(no mind yet)",
        _words(kept, left),
        _escape(now.shown(cp.now, budget.now_max, whole)) or "# 6. Now\n(none)",
        _files(cp.files),
        _skills(view, budget),
        "# 9. The full record\nEvery earlier message of this session, the user's, yours and "
        f"the tools' outputs, is in the vybe record, session {sid}, messages #1 to #{to} by "
        "context_seq; a number in the user's words is such a message. Search it for a detail "
        'this recollection let go (words, a "phrase", a prefix*, or a path, id or error text '
        f"exactly as written):\n{search_command(sid, vybe)}\nOnly the user's own messages:\n"
        f"{search_command(sid, vybe, 'user')}" + (f"\nThe whole mind: {whole}" if was_cut else ""),
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
        note = TRUNCATED.format(search=search_command(view.session_id, view.vybe))
        index = len(out)
        while index > 0 and out[index - 1].role == "tool":
            index -= 1
        for i in range(index, len(out)):
            if estimate(out[i].content) > newest_cap:
                shown = cut(out[i].content, max(newest_cap - estimate(note), 0))
                out[i] = Message("tool", f"{shown}\n{note}", tool_call_id=out[i].tool_call_id)
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
