"""What `vybe ui`'s pages read: each page's rows in one snapshot of the store, pages by key
(the last row's key names the next page), never a whole session at once."""

from __future__ import annotations

from typing import Any

from vybe.store import Store, viewer

PAGE = 50


def sessions(store: Store, before: str | None, limit: int = PAGE) -> dict[str, Any]:
    """A page of sessions, newest first; ``next`` is the key of the page after it."""
    with store.snapshot() as conn:
        rows = viewer.session_page(conn, before, limit + 1)
    return {"sessions": rows[:limit], "next": rows[limit - 1]["id"] if len(rows) > limit else None}


def session(store: Store, session_id: str, after: int, limit: int = PAGE) -> dict[str, Any]:
    """A page of a session's timeline after ``after`` and every checkpoint of it."""
    with store.snapshot() as conn:
        rows = viewer.timeline(conn, session_id, after, limit + 1)
        marks = viewer.checkpoints(conn, session_id)
    more = len(rows) > limit
    return {
        "messages": rows[:limit],
        "checkpoints": marks,
        "next": rows[limit - 1]["context_seq"] if more else None,
    }


def events(
    store: Store, filters: dict[str, str], before: int | None, limit: int = PAGE
) -> dict[str, Any]:
    """A page of the event log, newest first, filtered by agent, kind and task."""
    with store.snapshot() as conn:
        rows = viewer.event_page(conn, filters, before, limit + 1)
    return {"events": rows[:limit], "next": rows[limit - 1]["id"] if len(rows) > limit else None}


def high_water(store: Store) -> tuple[int, int, int]:
    """A mark that moves with every write of a message, event or checkpoint."""
    with store.snapshot() as conn:
        return viewer.high_water(conn)
