"""The context a hand-off carries to the next agent, built from the record within a budget.

When an agent hands a task over (``vybe task assign --to AGENT``), the receiver (a Codex
session picking up what a Claude Code session started, say) gets, from the session that
worked on it, and from no other (``--session-id`` when asked; else the one the sender's
newest begin or claim of the task ran in, which the agent's CLI names in the command's
environment and the event keeps; else the one the hand-off command runs in). When no
session worked on it, the context says so and carries no one's words:

* the person's own words about this task, verbatim: the session's first message (the goal)
  and those of the span the task was the sender's focus (from the prompt before it began or
  claimed the task until it began another, or the hand-off), chosen as the compact path
  chooses them (vybe.actions.user_words: the first, then directions, then the rest);
* the last working state: vybe's NOW where the session has a checkpoint, else the
  session's last replies and tool failures (the brief says that is all there is);
* the exact references found there: paths, vybe ids, commands in backticks.

The replies and failures shown are those of the same span.

Only the quotes are the person's; the rest is the sending agent's, and the brief says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from vybe.actions import user_words
from vybe.actions.hooks import agent_sessions
from vybe.errors import NotFound
from vybe.store import checkpoints as checkpoint_rows
from vybe.store import handoffs as handoff_rows
from vybe.store import receipts as receipt_rows
from vybe.store import record as record_rows
from vybe.store import sessions as session_rows
from vybe.store.record import MessageRow
from vybe.text import shorten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

WORDS_TOKENS = 600
STATE_CHARS = 1200
REPLY_CHARS = 500
FAILURE_CHARS = 300
REPLIES = 2
REPLIES_READ = 50  # the newest replies looked at for the last REPLIES with words
FAILURES = 3
REFERENCES = 15
REFERENCE_CHARS = 120
_REFERENCE = re.compile(
    r"`([^`\n]{2,120})`"  # a command or name the agent quoted
    r"|\b((?:task|memory|mem|proj|project|req|art|artifact)_\d{6,}_[0-9a-f]{4,})\b"  # vybe ids
    r"|((?:~|\.{1,2})?/?(?:[\w.-]+/)+(?:[\w.-]*[\w-])?)"  # a path or folder, no full stop
    r"|\b([\w-]+\.(?:py|js|ts|tsx|go|rs|md|json|ya?ml|toml|sql|sh|txt|cfg|ini|lock))\b"
)


def references(texts: list[str]) -> list[str]:
    """Paths, vybe ids and quoted commands, in the order first found, each once."""
    found: dict[str, None] = {}
    for text in texts:
        for match in _REFERENCE.finditer(text):
            ref = next(g for g in match.groups() if g)
            if len(ref) <= REFERENCE_CHARS and ref not in ("./", "../"):
                found.setdefault(ref, None)
            if len(found) >= REFERENCES:
                return list(found)
    return list(found)


LATEST = "9999-12-31T23:59:59Z"  # after every time the clock stamps


def current_session(conn: Any, agent: str, environ: Mapping[str, str]) -> str | None:
    """The recorded session the command runs in, as its agent CLI names it; the variable of
    the agent's own product first (a Codex run from Claude's Bash inherits Claude's too)."""
    return next((s for s in agent_sessions(agent, environ) if session_rows.exists(conn, s)), None)


def _session(
    conn: Any,
    agent: str,
    began: tuple[int, str, str | None] | None,
    asked: str | None,
    environ: Any,
) -> str | None:
    """The session asked for; else the one the agent's newest begin or claim of the task
    ran in; else the one the command runs in; None when no recorded session worked on it
    (another session's words, the agent's newest say, are never a guess at it)."""
    if asked is None:
        if began is not None and began[2] and session_rows.exists(conn, began[2]):
            return began[2]
        return current_session(conn, agent, environ)
    if not session_rows.exists(conn, asked):
        raise NotFound(
            f"no session {asked!r} in the record",
            context={"entity": "session", "id": asked, "field": "session_id"},
            suggested_action="run `vybe session list` to see session ids",
        )
    return asked


def no_session() -> JSONObject:
    """The context of a task no recorded session worked on: it says so, and carries no
    one's words."""
    return {
        "session_id": None,
        "user_messages": 0,
        "span": None,
        "user_words": [],
        "working_state": {"source": "none"},
        "references": [],
    }


def span_words(conn: Any, session: str, span: JSONObject | None) -> list[MessageRow]:
    """The person's messages to choose from: the session's first and, of the span, the
    prompt before the task was taken and the newest WINDOW after it, short of the prompt
    before the next task was taken (the whole session's first and newest without a span);
    bounded reads, whatever the session's length."""
    if span is None:
        return record_rows.first_and_newest(conn, session, "user", user_words.WINDOW)
    until = span["until"] or LATEST
    rows = record_rows.newest_of_type(conn, session, "user", user_words.WINDOW + 1, until)
    inside = [r for r in rows if r.created_at >= span["from"]]
    before = rows[: len(rows) - len(inside)][-1:]  # the prompt that asked for the task
    if span["until"]:
        inside = inside[:-1]  # the prompt that asked for the next task is that task's
    rows = [*before, *inside][-user_words.WINDOW :]
    first = record_rows.first_of_type(conn, session, "user")
    return [*first, *rows] if first and (not rows or first[0].seq < rows[0].seq) else rows


def _span(
    conn: Any, agent: str, task_id: str, began: tuple[int, str, str | None] | None, session: str
) -> JSONObject | None:
    """When the task was the sender's focus: from its newest begin or claim until it began
    another task in this session (None: until the hand-off); None when it never took the
    task. Another window of the same agent taking a task ends nothing here."""
    if began is None:
        return None
    after = handoff_rows.next_taken(conn, agent, task_id, began[0], session)
    return {"task_id": task_id, "from": began[1], "until": after}


def build(
    store: Any,
    agent: str,
    task_id: str,
    session_id: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> JSONObject:
    """The context of ``agent``'s hand-off of ``task_id`` from ``session_id`` (default: the
    session as ``_session`` says); without one, a context that says so and carries nothing."""
    with store.snapshot() as conn:
        began = handoff_rows.taken(conn, agent, task_id)
        session = _session(conn, agent, began, session_id, environ or {})
        if session is None:
            return no_session()
        span = _span(conn, agent, task_id, began, session)
        until = (span and span["until"]) or LATEST
        users = span_words(conn, session, span)
        typed = receipt_rows.typed_messages(conn, session)
        checkpoint = checkpoint_rows.latest_checkpoint(conn, session)
        newest = record_rows.newest_of_type(conn, session, "assistant", REPLIES_READ, until)
        # a tool call made without a word is a reply without text
        replies = [r for r in newest if r.text.strip()][-REPLIES:]
        failures = handoff_rows.tool_failures(conn, agent, session, until, FAILURES)
    chosen = user_words.choose(users, WORDS_TOKENS)
    if checkpoint is not None and checkpoint.now.strip():
        state: JSONObject = {"source": "now", "now": shorten(checkpoint.now, STATE_CHARS)}
        texts = [checkpoint.now]
    else:
        state = {
            "source": "record",
            "replies": [shorten(r.text, REPLY_CHARS) for r in replies],
            "failures": [shorten(f, FAILURE_CHARS) for f in failures],
        }
        texts = [*reversed([r.text for r in replies]), *failures]
    return {
        "session_id": session,
        "user_messages": typed,
        "span": span,
        "user_words": [
            {"seq": c.row.seq, "at": c.row.created_at, "text": c.text, "cut": c.cut} for c in chosen
        ],
        "working_state": state,
        "references": references([*texts, *(c.text for c in chosen)]),
    }
