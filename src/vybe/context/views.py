"""Each session's view kept between the requests of one run, so a request reads only new rows.

The record is append-only: a row, once written, never changes. So a view stays right as long
as the session's latest checkpoint is the same one; the next request reads only the rows
after the last one seen (another process may have appended them), and a new checkpoint,
taken by this run or any other, loads the view afresh.
"""

from __future__ import annotations

from vybe.context import assemble
from vybe.context.assemble import View
from vybe.context.record import Record


class Views:
    """The views of one run's sessions."""

    def __init__(self, record: Record, vybe: str = assemble.VYBE) -> None:
        self.record, self.vybe = record, vybe
        self._views: dict[str, View] = {}

    def load(self, session_id: str) -> View:
        """What ``assemble.load`` returns, reading only what changed since the last call."""
        checkpoint = self.record.latest_checkpoint(session_id)
        cached = self._views.get(session_id)
        if cached is None or _key(cached.checkpoint) != _key(checkpoint):
            view = assemble.load(self.record, session_id, checkpoint, self.vybe)
        else:
            seen = cached.rows[-1].seq if cached.rows else _start(cached) - 1
            view = cached.extended(self.record.messages(session_id, seen + 1))
        self._views[session_id] = view
        return view


def _key(checkpoint: object) -> int | None:
    return getattr(checkpoint, "id", None)


def _start(view: View) -> int:
    return view.checkpoint.first_kept_seq if view.checkpoint else 1
