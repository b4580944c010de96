"""The context a hand-off carries to the next agent, built from the record within a budget.

When an agent hands a task over (``vybe task assign --to AGENT``), the receiver (a Codex
session picking up what a Claude Code session started, say) gets, from the session that
worked on it:

* the person's own words, verbatim, chosen as the compact path chooses them
  (vybe.integrations.user_words: the first message, then directions, then the rest);
* the last working state: vybe's NOW where the session has a checkpoint, else the
  session's last replies and tool failures;
* the exact references found there: paths, vybe ids, commands in backticks.

Only the quotes are the person's; the rest is the sending agent's, and the brief says so.
"""

from __future__ import annotations

import re
from typing import Any

from vybe.errors import NotFound
from vybe.integrations import user_words
from vybe.store import checkpoints as checkpoint_rows
from vybe.store import handoffs as handoff_rows
from vybe.store import receipts as receipt_rows
from vybe.store import record as record_rows
from vybe.store import sessions as session_rows
from vybe.text import shorten

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
    r"|((?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*)"  # paths with a folder, or a folder
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


def _session(conn: Any, agent: str, session_id: str | None) -> str | None:
    if session_id is None:
        return handoff_rows.newest_prompt_session(conn, agent)
    if not session_rows.exists(conn, session_id):
        raise NotFound(
            f"no session {session_id!r} in the record",
            context={"entity": "session", "id": session_id, "field": "session_id"},
            suggested_action="run `vybe session list` to see session ids",
        )
    return session_id


def build(store: Any, agent: str, session_id: str | None = None) -> dict | None:
    """The context of ``agent``'s hand-off from ``session_id`` (default: its newest session
    the hooks recorded); None when there is no such session."""
    with store.snapshot() as conn:
        session = _session(conn, agent, session_id)
        if session is None:
            return None
        users = record_rows.first_and_newest(conn, session, "user", user_words.WINDOW)
        typed = receipt_rows.typed_messages(conn, session)
        checkpoint = checkpoint_rows.latest_checkpoint(conn, session)
        newest = record_rows.newest_of_type(conn, session, "assistant", REPLIES_READ)
        # a tool call made without a word is a reply without text
        replies = [r for r in newest if r.text.strip()][-REPLIES:]
        failures = handoff_rows.tool_failures(conn, agent, session, FAILURES)
    chosen = user_words.choose(users, WORDS_TOKENS)
    if checkpoint is not None and checkpoint.now.strip():
        state: dict = {"source": "now", "now": shorten(checkpoint.now, STATE_CHARS)}
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
        "user_words": [
            {"seq": c.row.seq, "at": c.row.created_at, "text": c.text, "cut": c.cut} for c in chosen
        ],
        "working_state": state,
        "references": references([*texts, *(c.text for c in chosen)]),
    }
