"""The record's own row type, a message of a session, and which session ids it takes.

The engine defines it and reads it through its record interface; the store's SQLite record
builds it. A leaf module (stdlib only), since every hook builds these rows; the types of the
engine's checkpoints live beside it (vybe.context.checkpoints), which no hook needs.
"""

from __future__ import annotations

from vybe.errors import InvalidInput
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject


_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
SESSION_ID_CHARS = _ALNUM | frozenset("_.:@+=-")
SESSION_ID_MAX = 256


def check_session_id(session_id: object) -> str:
    """A session id the record takes: a letter or digit, then letters, digits and ``_.:@+=-``,
    at most 256 in all (``claude:<uuid>``, ``ses_…``); ``..``, blanks, slashes are refused.
    Checked without a regular expression: every transcript import checks each row's."""
    if (
        isinstance(session_id, str)
        and 0 < len(session_id) <= SESSION_ID_MAX
        and session_id[0] in _ALNUM
        and SESSION_ID_CHARS.issuperset(session_id)
    ):
        return session_id
    raise InvalidInput(
        f"{session_id!r} is not a session id",
        context={"field": "session_id"},
        suggested_action="use letters, digits and _.:@+=- (at most 256), starting with a letter"
        " or digit",
    )


# A row (vybe.tuples), not a dataclass: every hook builds these, and `import dataclasses`
# (with inspect) is kept off the hook path (docs/architecture.md, performance budgets).


class MessageRow(Row):
    """One input or reply of a session, as the record holds it."""

    __slots__ = ()
    session_id: str
    seq: int
    type: str
    text: str
    source: str = ""
    data: JSONObject = None  # type: ignore[assignment]  # None: a fresh {} for each row
    tokens: int = 0
    created_at: str = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> MessageRow:
        row = super().__new__(cls, *args, **kwargs)
        return row if row.data is not None else row._replace(data={})
