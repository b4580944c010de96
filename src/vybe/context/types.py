"""The record's own types: a row of a session, a memo mark, a checkpoint, an attempt, and
which session ids it takes.

The engine defines them and reads them through its record interface; the store's SQLite
record builds them. A leaf module (stdlib only), since every hook builds these.
"""

from __future__ import annotations

from collections import namedtuple

from vybe.errors import InvalidInput

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any


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


# Named tuples, not dataclasses: every hook builds these, and `import dataclasses` (with
# inspect) costs a hook process 7 ms of a 13 ms budget (docs/architecture.md, performance
# budgets).


class MessageRow(
    namedtuple(
        "MessageRow",
        "session_id seq type text source data tokens created_at",
        defaults=("", None, 0, ""),
    )
):
    """One input or reply of a session, as the record holds it."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> MessageRow:
        row = super().__new__(cls, *args, **kwargs)
        return row if row.data is not None else row._replace(data={})


class MemoMark(namedtuple("MemoMark", "seq checked")):
    """One memo candidate: a user message by its number, and whether it is kept."""

    __slots__ = ()


class Checkpoint(
    namedtuple(
        "Checkpoint",
        "session_id mode first_kept_seq summarized_to_seq mind now memo kept_inputs skills files"
        " tokens_before tokens_after id created_at",
        defaults=((), (), (), None, 0, 0, 0, ""),
    )
):
    """An accepted checkpoint; the latest one of a session is the one in effect."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Checkpoint:
        checkpoint = super().__new__(cls, *args, **kwargs)
        return checkpoint if checkpoint.files is not None else checkpoint._replace(files={})


class Attempt(
    namedtuple(
        "Attempt",
        "session_id mode reason outcome tokens_before tokens_after problems repair_ran fallbacks"
        " flagged_references rounds usage error run_id checkpoint_id id created_at",
        defaults=(None, (), False, (), (), 0, None, None, "", None, 0, ""),
    )
):
    """The audit row of one checkpoint attempt, accepted or failed."""

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> Attempt:
        attempt = super().__new__(cls, *args, **kwargs)
        return attempt if attempt.usage is not None else attempt._replace(usage={})
