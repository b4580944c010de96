"""The engine's checkpoint types: a memo mark, a checkpoint, and the audit row of an attempt.

The engine defines them and reads them through its record interface; the store's SQLite
record builds them. Apart from vybe.context.types (the rows every hook writes): each named
tuple costs a process about 0.75M instructions to define, and no hook needs these.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any


# Named tuples, not dataclasses: `import dataclasses` (with inspect) costs a process 7 ms
# (docs/architecture.md, performance budgets).


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
