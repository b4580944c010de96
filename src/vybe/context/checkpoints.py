"""The engine's checkpoint types: a memo mark, a checkpoint, and the audit row of an attempt.

The engine defines them and reads them through its record interface; the store's SQLite
record builds them. Apart from vybe.context.types (the rows every hook writes): no hook
needs these.
"""

from __future__ import annotations

from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject


# Rows (vybe.tuples), not dataclasses: `import dataclasses` (with inspect) is kept off the
# start-up paths (docs/architecture.md, performance budgets).


class MemoMark(Row):
    """One memo candidate: a user message by its number, whether it is kept, and whether the
    model itself ticked it (``checked`` without ``ticked``: kept by a fallback, which the model
    did not choose; such a message gives way first when the memo is over its budget)."""

    __slots__ = ()
    seq: int
    checked: bool
    ticked: bool = False


class Checkpoint(Row):
    """An accepted checkpoint; the latest one of a session is the one in effect."""

    __slots__ = ()
    session_id: str
    mode: str
    first_kept_seq: int
    summarized_to_seq: int
    mind: str
    now: str
    memo: tuple[MemoMark, ...] = ()
    kept_inputs: tuple[int, ...] = ()
    skills: tuple[JSONObject, ...] = ()
    files: JSONObject = None  # type: ignore[assignment]  # None: a fresh {} for each checkpoint
    tokens_before: int = 0
    tokens_after: int = 0
    id: int = 0
    created_at: str = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> Checkpoint:
        checkpoint = super().__new__(cls, *args, **kwargs)
        return checkpoint if checkpoint.files is not None else checkpoint._replace(files={})


class Attempt(Row):
    """The audit row of one checkpoint attempt, accepted or failed."""

    __slots__ = ()
    session_id: str
    mode: str
    reason: str
    outcome: str
    tokens_before: int
    tokens_after: int | None = None
    problems: tuple[str, ...] = ()
    repair_ran: bool = False
    fallbacks: tuple[str, ...] = ()
    flagged_references: tuple[str, ...] = ()
    rounds: int = 0
    usage: JSONObject = None  # type: ignore[assignment]  # None: a fresh {} for each attempt
    error: str | None = None
    run_id: str = ""
    checkpoint_id: int | None = None
    id: int = 0
    created_at: str = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> Attempt:
        attempt = super().__new__(cls, *args, **kwargs)
        return attempt if attempt.usage is not None else attempt._replace(usage={})
