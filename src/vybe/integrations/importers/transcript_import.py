"""What importing any agent's JSONL transcript into the record shares, whatever its format.

Each imported row carries ``data[<stamp>]`` = {transcript id, byte offset after its line},
so the next import of the same file starts after the last line imported; an unfinished last
line (no newline yet) is left for next time, and a complete line that is not JSON is counted
and skipped, as is a JSON line of a shape the format does not know (failing on either would
stop every later import at the same line). A ``Builder``
gathers one reply's text and tool calls, writes it, then the calls' results right after it,
so every call is answered once.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime

from vybe import clock, jsonio
from vybe.context.recorder import (
    record_harness,
    record_reply,
    record_tool,
    record_user,
    unanswered,
)
from vybe.errors import NotFound
from vybe.tuples import Row

# Claude's Stop hook imports through this on every turn: the standard library only, and
# neither dataclasses, typing, pathlib nor the engine's model types (they cost a hook
# process tens of ms).
TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from os import PathLike
    from typing import Any

    from vybe.context.labels import Dispatch
    from vybe.context.record import Record
    from vybe.context.types import MessageRow


class Call(Row):
    """A tool call as an import gathers it: what the record keeps of one (the engine's
    ToolCall has the same fields)."""

    __slots__ = ()
    id: str
    name: str
    arguments: Any


NO_RESULT = "(no result was recorded: the call was interrupted)"


class Compaction(Row):
    """A compaction a transcript marks (Claude's compact boundary, Codex's compacted line):
    ``key`` names it in its file, ``kept`` the texts of the person's messages the harness
    kept in its own context (Codex's replacement history)."""

    __slots__ = ()
    key: str
    compactor: str
    trigger: str
    tokens_before: int | None
    tokens_after: int | None
    at: str
    kept: tuple = ()


class ImportResult:
    """What one import added, and where the next one starts: ``skipped`` counts complete
    lines not JSON or of no known shape (left out, never retried); ``more`` says the import
    stopped at its budget between two messages (the rest comes next time); ``boundary``:
    the tokens before and after of the newest compaction the lines marked (Claude's)."""

    def __init__(self, session_id: str, offset: int) -> None:
        self.session_id, self.offset = session_id, offset
        self.lines = self.skipped = 0
        self.more = False
        self.counts: dict[str, int] = {"user": 0, "assistant": 0, "tool": 0}
        # the newest compaction's tokens before and after, and when it was (Claude's)
        self.boundary: tuple[int | None, int | None, str] | None = None
        # every compaction the lines marked, oldest first (receipts for `vybe session import`)
        self.compactions: list[Compaction] = []


class Stamped:
    """A record whose appended rows remember the transcript line they came from: written at
    the line's own time (``at``; the time of import when no line gave one), the time of
    import beside it in the stamp, so a time range over imported history answers by when
    it happened."""

    def __init__(self, record: Record, key: str, transcript: str) -> None:
        self.record, self.key = record, key
        self.stamp: dict[str, Any] = {"transcript": transcript, "offset": 0}
        self.at = ""
        self.imported_at = clock.now_iso()

    def append(self, message: MessageRow) -> MessageRow:
        stamp = {**self.stamp, "imported_at": self.imported_at}
        data = {**message.data, self.key: stamp}
        return self.record.append(message._replace(data=data, created_at=self.at))


def source_time(value: Any) -> str:
    """A transcript line's ``timestamp`` as the store writes times; "" when it has none."""
    if not isinstance(value, str):
        return ""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return ""
    return clock.iso(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


class Builder:
    """Turns a transcript's messages into rows: the person's words, replies, call results."""

    def __init__(self, record: Stamped, session_id: str, result: ImportResult) -> None:
        self.record, self.session_id, self.result = record, session_id, result
        self.text: list[str] = []
        self.calls: list[Call] = []
        self.unanswered: dict[str, Call] = {}

    def line(self, data: dict[str, Any]) -> None:
        """One parsed transcript line; each format says what its lines mean."""
        raise NotImplementedError

    def person(self, words: str) -> None:
        """What a person typed: it ends the reply being gathered and any unanswered call."""
        self.flush()
        self.close_calls()
        record_user(self.record, self.session_id, words)
        self.result.counts["user"] += 1

    def harness(self, dispatch: Dispatch, text: str) -> None:
        """An input no person typed (a summary the agent's harness wrote), in its place."""
        self.flush()
        record_harness(self.record, self.session_id, dispatch, text)
        self.result.counts["harness"] = self.result.counts.get("harness", 0) + 1

    def answer(self, call_id: Any, output: str, is_error: bool) -> None:
        """The result of a call; a result for no known call is dropped."""
        self.flush()
        call = self.unanswered.pop(call_id, None)
        if call is not None:
            self.tool(call, output, is_error)

    def tool(self, call: Call, output: str, is_error: bool) -> None:
        record_tool(self.record, self.session_id, call, output, is_error=is_error)
        self.result.counts["tool"] += 1

    def gathering(self) -> bool:
        """Whether a reply is half gathered (an import stops only between messages)."""
        return bool(self.text or self.calls)

    def flush(self) -> None:
        """Append the reply being gathered, if any."""
        if self.text or self.calls:
            record_reply(self.record, self.session_id, "\n\n".join(self.text), self.calls)
            self.result.counts["assistant"] += 1
            self.unanswered.update({c.id: c for c in self.calls})
        self.text, self.calls = [], []

    def close_calls(self) -> None:
        """Calls that never got a result get a note, so every call is answered in the record."""
        for call in list(self.unanswered.values()):
            self.tool(call, NO_RESULT, True)
        self.unanswered.clear()


def last_offset(rows: list[MessageRow], key: str, transcript: str) -> int:
    """Where the previous import of this transcript into these rows ended (0 if none)."""
    for row in reversed(rows):
        stamp = row.data.get(key)
        if stamp and stamp.get("transcript") == transcript:
            return int(stamp["offset"])
    return 0


def first_field(path: str | PathLike, pick: Callable[[dict[str, Any]], Any]) -> str | None:
    """The first non-empty value ``pick`` finds on a line of the file (bad lines skipped)."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for raw in handle:
            try:
                line = jsonio.loads(raw)
            except ValueError:
                continue
            value = pick(line) if isinstance(line, dict) else None
            if value:
                return str(value)
    return None


def stem(path: str | PathLike) -> str:
    """The file's name without its last suffix (``pathlib.PurePath.stem``)."""
    return os.path.splitext(os.path.basename(path))[0]


def resume_point(record: Record, session_id: str, key: str, transcript: str) -> tuple[int, int]:
    """Where the last import of ``transcript`` ended (a byte offset, 0 if none), and the first
    row the next one needs: the last reply (calls waiting for results) and any row after the
    last import. A store's record answers from its newest rows; another reads them all."""
    conn = getattr(getattr(record, "store", None), "conn", None)
    if conn is None:
        return last_offset(record.messages(session_id), key, transcript), 1
    from vybe.store import record as record_rows

    offset, stamped = 0, 0
    for seq, stamp in record_rows.stamps(conn, session_id, key):
        if stamp.get("transcript") == transcript:
            offset, stamped = int(stamp["offset"]), seq
            break
    reply = record_rows.last_imported_reply(conn, session_id)
    return offset, max(1, min(reply or stamped + 1, stamped + 1))


class Budget(Row):
    """How much one import may read (bytes, seconds) before it stops between two messages
    (the next one goes on from there): a big first import stays inside a hook's timeout."""

    __slots__ = ()
    bytes: int
    seconds: float


def import_file(
    record: Record,
    session_id: str,
    path: str | PathLike,
    offset: int | None,
    *,
    key: str,
    transcript: Callable[[str | PathLike], str],
    builder: Callable[[Stamped, str, ImportResult], Builder],
    budget: Budget | None = None,
) -> ImportResult:
    """Append the file's new lines to ``session_id``; ``offset`` None resumes. A file with no
    new bytes costs a stat and a look at the session's newest rows."""
    if not os.path.isfile(path):
        raise NotFound(f"no transcript at {path}", context={"path": str(path)})
    name = transcript(path)
    if offset is None:
        start, tail_from = resume_point(record, session_id, key, name)
        if os.path.getsize(path) <= start:
            return ImportResult(session_id, start)
    else:
        start, tail_from = offset, 1
    stamped = Stamped(record, key, name)
    result = ImportResult(session_id, start)
    importer = builder(stamped, session_id, result)
    from vybe.store.record import is_kept_reply

    # A reply a Stop hook kept answers no call: the results this import reads find theirs.
    rows = [r for r in record.messages(session_id, tail_from) if not is_kept_reply(r)]
    waiting = unanswered(rows)
    importer.unanswered = {c["id"]: Call(c["id"], c["name"], c["arguments"]) for c in waiting}
    stop_at = (start + budget.bytes, time.monotonic() + budget.seconds) if budget else None
    with open(path, "rb") as handle:
        handle.seek(start)
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            if stop_at and not importer.gathering() and over(stop_at, result.offset):
                result.more = True
                break
            stamped.stamp["offset"] = result.offset = result.offset + len(raw)
            result.lines += 1
            try:
                data = jsonio.loads(raw.decode("utf-8"))
            except ValueError:  # UnicodeDecodeError is one
                result.skipped += 1
                continue
            if not isinstance(data, dict):
                continue
            stamped.at = source_time(data.get("timestamp")) or stamped.at
            try:
                importer.line(data)
            except (TypeError, ValueError, KeyError, AttributeError):
                result.skipped += 1  # a shape no format knows: left out, the rest goes on
    importer.flush()
    return result


def over(stop_at: tuple[int, float], offset: int) -> bool:
    return offset >= stop_at[0] or time.monotonic() >= stop_at[1]


def _hooked_key(message: MessageRow) -> tuple[str, str, bool]:
    return message.type, message.text, bool(message.data.get("tool_calls"))


class SkipHooked:
    """The record, minus transcript copies of rows the hooks already recorded."""

    def __init__(self, record: Any, pending: list[tuple[str, str, bool]]) -> None:
        self.record, self.pending = record, pending
        self.last_reply: str | None = None  # the text of the last reply the file held
        self.result: Any = None
        self.left_out = 0  # copies of hooked rows not appended again

    def append(self, message: MessageRow) -> MessageRow:
        if message.type == "assistant":
            self.last_reply = message.text
        key = _hooked_key(message)
        if key in self.pending:
            self.pending.remove(key)
            self.left_out += 1
            return message
        return self.record.append(message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.record, name)


def _hooked_since_import(record: Any, session_id: str, stamp: str) -> list[tuple[str, str, bool]]:
    """Rows the hooks recorded after the last imported row: not yet matched in the file (only
    the rows after it are read)."""
    from vybe.store import record as record_rows

    last = record.store.read_one(
        lambda conn: next((seq for seq, _ in record_rows.stamps(conn, session_id, stamp)), 0)
    )
    rows = record.messages(session_id, last + 1)
    # Rows the hooks write that a transcript holds too: the prompt, and a kept final reply.
    hooked = [
        r for r in rows if r.source == record_rows.HOOK_SOURCE or record_rows.is_kept_reply(r)
    ]
    return [_hooked_key(r) for r in hooked]


def import_skipping_hooked(
    record: Any,
    session_id: str,
    path: str | PathLike,
    stamp: str,
    run: Any,
    wait: float | None = None,
) -> Any:
    """Run ``run`` (an importer) into ``session_id``, leaving out copies of what the hooks
    recorded there since the last import; the wrapper, its ``result`` set.

    One import at a time per store: Claude's Stop hook runs async, so two can overlap, and
    each would start from the same offset and append the same rows. The wait for another
    import is bounded (DB_LOCKED after ``wait`` seconds): imports start from where the last
    one ended, so one skipped loses nothing."""
    from vybe import locks
    from vybe.errors import DatabaseLocked
    from vybe.integrations.hooks.hook import IMPORT_WAIT, import_lock

    wait = IMPORT_WAIT if wait is None else wait
    lock = import_lock(record.store)
    with locks.exclusive(lock, timeout=wait) as held:
        if not held:
            raise DatabaseLocked(
                f"another transcript import has held {lock} for {wait:g} s",
                suggested_action="retry when it is done; nothing is lost meanwhile",
            )
        target = SkipHooked(record, _hooked_since_import(record, session_id, stamp))
        target.result = run(target, session_id, path)
    return target
