"""Sessions of the record, as `vybe session list` shows them, and the ids that name them."""

from __future__ import annotations

from vybe import limits
from vybe.actions.hooks import AGENT_SESSIONS
from vybe.errors import InvalidInput
from vybe.store import Store, sessions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def listing(store: Store, limit: int) -> dict[str, Any]:
    """Up to ``limit`` sessions, newest activity first, read in one snapshot."""
    with store.snapshot() as conn:
        found = sessions.list_sessions(conn, limit)
    return {"count": len(found), "sessions": found}


def canonical(store: Store, session_id: str) -> str:
    """The record's id of the session ``session_id`` names: itself when the record has it or
    it names its agent (``claude:…``), else the agent session of that id (the bare id Claude
    Code and Codex show, ``claude:`` or ``codex:`` before it); as given when there is none. An
    id two agents' sessions share is refused."""
    limits.text("session_id", session_id, limits.PATH_MAX, required=True)
    if ":" in session_id:
        return session_id
    named = [prefix + session_id for _, prefix in AGENT_SESSIONS]
    with store.snapshot() as conn:
        if sessions.exists(conn, session_id):
            return session_id
        found = [name for name in named if sessions.exists(conn, name)]
    if len(found) > 1:
        raise InvalidInput(
            f"{session_id!r} is the id of more than one agent's session",
            context={"field": "session_id", "sessions": found},
            suggested_action=f"name the session with its agent, e.g. {found[0]}",
        )
    return found[0] if found else session_id
