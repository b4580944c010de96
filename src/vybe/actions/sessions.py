"""Sessions of the record, as `vybe session list` shows them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vybe.store import Store, sessions

if TYPE_CHECKING:
    from typing import Any


def listing(store: Store, limit: int) -> dict[str, Any]:
    """Up to ``limit`` sessions, newest activity first, read in one snapshot."""
    with store.snapshot() as conn:
        found = sessions.list_sessions(conn, limit)
    return {"count": len(found), "sessions": found}
