"""The record the engine reads and appends to, behind one small protocol.

The real one is vybe.store.record.SqliteRecord (the ``messages``/``checkpoints`` tables of
the vybe store): the engine never imports the store. ``MemoryRecord`` keeps the same rows in
lists, for tests, benchmarks and sessions that need no file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from vybe import clock
from vybe.context.checkpoints import Attempt, Checkpoint, MemoMark
from vybe.context.types import MessageRow, check_session_id

__all__ = [
    "Appends",
    "Attempt",
    "Checkpoint",
    "MemoMark",
    "MemoryRecord",
    "MessageRow",
    "Record",
    "check_session_id",
]


class Appends(Protocol):
    """What recording an input or a reply needs of a record: appending one row."""

    def append(self, message: MessageRow) -> MessageRow: ...


class Record(Protocol):
    """Append-only rows of sessions, their checkpoints and the audit of every attempt."""

    def append(self, message: MessageRow) -> MessageRow: ...

    def messages(
        self, session_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[MessageRow]: ...

    def messages_at(self, session_id: str, seqs: Iterable[int]) -> list[MessageRow]: ...

    def latest_checkpoint(self, session_id: str) -> Checkpoint | None: ...

    def save(
        self, attempt: Attempt, checkpoint: Checkpoint | None
    ) -> tuple[Attempt, Checkpoint | None]: ...

    def attempts(self, session_id: str) -> list[Attempt]: ...


class MemoryRecord:
    """The same record in memory: for tests and benchmarks."""

    def __init__(self) -> None:
        self._messages: dict[str, list[MessageRow]] = {}
        self._checkpoints: list[Checkpoint] = []
        self._attempts: list[Attempt] = []

    def append(self, message: MessageRow) -> MessageRow:
        rows = self._messages.setdefault(message.session_id, [])
        stored = message._replace(
            seq=len(rows) + 1, created_at=message.created_at or clock.now_iso()
        )
        rows.append(stored)
        return stored

    def messages(
        self, session_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[MessageRow]:
        rows = self._messages.get(session_id, [])
        end = len(rows) if to_seq is None else min(to_seq, len(rows))
        return rows[max(from_seq, 1) - 1 : end]

    def messages_at(self, session_id: str, seqs: Iterable[int]) -> list[MessageRow]:
        rows = self._messages.get(session_id, [])
        return [rows[s - 1] for s in sorted(set(seqs)) if 0 < s <= len(rows)]

    def latest_checkpoint(self, session_id: str) -> Checkpoint | None:
        mine = [c for c in self._checkpoints if c.session_id == session_id]
        return mine[-1] if mine else None

    def save(
        self, attempt: Attempt, checkpoint: Checkpoint | None
    ) -> tuple[Attempt, Checkpoint | None]:
        now = clock.now_iso()
        stored_cp = None
        if checkpoint is not None:
            stored_cp = checkpoint._replace(id=len(self._checkpoints) + 1, created_at=now)
            self._checkpoints.append(stored_cp)
        stored = attempt._replace(
            id=len(self._attempts) + 1,
            checkpoint_id=stored_cp.id if stored_cp else None,
            created_at=now,
        )
        self._attempts.append(stored)
        return stored, stored_cp

    def attempts(self, session_id: str) -> list[Attempt]:
        return [a for a in self._attempts if a.session_id == session_id]
