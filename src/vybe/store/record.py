"""The session record in SQL: each session's row (who started it, in which project) and its
messages (the checkpoints are vybe.store.checkpoints).

``SqliteRecord`` is the engine's record interface (vybe.context.record.Record) over a vybe
store; the row types are the engine's own (vybe.context.types). The hooks, which write and
read messages only, never load the checkpoints' module or types."""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Callable, Iterable, Iterator

from vybe import clock, jsonio, privacy
from vybe.context.types import MessageRow
from vybe.store.base import Store
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.context.checkpoints import Attempt, Checkpoint
    from vybe.jsonio import JSONObject

__all__ = [
    "MessageRow",
    "Origin",
    "SqliteRecord",
    "append_message",
    "first_and_newest",
    "first_of_type",
    "is_kept_reply",
    "kept_reply_source",
    "last_imported_reply",
    "list_messages",
    "messages_at",
    "messages_of_type",
    "newest_of_type",
    "stamps",
    "start_session",
    "waits_for_results",
]

KEPT_REPLY_SUFFIX = "_stop"  # kept_reply_source
HOOK_SOURCE = "prompt_hook"  # a prompt a UserPromptSubmit hook recorded as it was typed

_MESSAGE_COLUMNS = (
    "session_id, context_seq, type, source, content_text, content_json, tokens, created_at"
)
_READ_COLUMNS = "context_seq, type, source, content_text, content_json, tokens, created_at"


def _read_messages(
    conn: sqlite3.Connection, session_id: str, where: str, params: tuple[Any, ...]
) -> list[MessageRow]:
    """One session's rows as plain tuples, every content_json decoded by a single json.loads.

    A cold request reads every row of its context: named-column rows, one json.loads per row
    and the cyclic collector walking the heap again and again while tens of thousands of
    acyclic containers are built were most of its time (benchmarks/engine.py)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    collecting = gc.isenabled()
    gc.disable()
    try:
        rows = cursor.execute(
            f"SELECT {_READ_COLUMNS} FROM messages WHERE session_id = ? AND {where}"
            " ORDER BY context_seq",
            (session_id, *params),
        ).fetchall()
        datas = jsonio.loads("[" + ",".join(r[4] or "{}" for r in rows) + "]")
        make = tuple.__new__  # each row whole, its data a dict: MessageRow.__new__ adds nothing
        return [
            make(MessageRow, (session_id, r[0], r[1], r[3], r[2], data, r[5], r[6]))
            for r, data in zip(rows, datas, strict=True)
        ]
    finally:
        if collecting:
            gc.enable()


class Origin(Row):
    """Who starts a session (an agent's name: the hook's agent, the client `vybe proxy`
    recognised) and the project its working folder resolves to (the folder's absolute path,
    as the hooks' projects are named); None where the writer does not know."""

    __slots__ = ()
    agent: str | None = None
    project: str | None = None


def start_session(
    conn: sqlite3.Connection, session_id: str, at: str, origin: Origin | None
) -> None:
    """The session's row, when it has none yet, with its origin (a session already made
    keeps its own): written in the statement that makes the row, so a session's writes cost
    no statement more (the hooks' per-prompt budget)."""
    agent, project = origin or (None, None)
    conn.execute(
        "INSERT INTO sessions (id, created_at, agent_name, project_id) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (id) DO NOTHING",
        (session_id, at, agent, project),
    )


def append_message(
    store: Store,
    message: MessageRow,
    once: tuple[str, str] | None = None,
    origin: Origin | None = None,
) -> MessageRow:
    """Append one row; its context_seq is the session's next, taken under the write lock.
    ``once``: (agent, request id) the row is written once by, in the idempotency ledger;
    a second call with it returns the row the first wrote. ``origin``: who started the
    session and where, kept when this row starts it."""

    def body(conn: sqlite3.Connection) -> MessageRow:
        now = clock.now_iso()
        start_session(conn, message.session_id, now, origin)
        seq = conn.execute(
            "SELECT COALESCE(MAX(context_seq), 0) + 1 FROM messages WHERE session_id = ?",
            (message.session_id,),
        ).fetchone()[0]
        # a row imported from an agent's transcript keeps the time the transcript gives it
        stored = message._replace(
            seq=seq, created_at=message.created_at or now, text=privacy.scrub(message.text)
        )
        conn.execute(
            f"INSERT INTO messages ({_MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                stored.session_id,
                seq,
                stored.type,
                stored.source,
                stored.text,
                privacy.scrub_json(jsonio.dumps(stored.data, ensure_ascii=False))
                if stored.data
                else None,
                stored.tokens,
                stored.created_at,
            ),
        )
        return stored

    if once is None:
        return store.transact(body)

    def stamped(conn: sqlite3.Connection) -> dict[str, Any]:
        stored = body(conn)
        return {"seq": stored.seq, "created_at": stored.created_at}

    args = {"session_id": message.session_id, "text": message.text}
    first = store.transact_once(once, "record prompt", args, stamped)
    return message._replace(
        seq=first["seq"], created_at=first["created_at"], text=privacy.scrub(message.text)
    )


def list_messages(
    conn: sqlite3.Connection, session_id: str, from_seq: int = 1, to_seq: int | None = None
) -> list[MessageRow]:
    """The rows of a session from ``from_seq`` up to ``to_seq`` (inclusive), in order."""
    end = to_seq if to_seq is not None else NO_END
    return _read_messages(
        conn, session_id, "context_seq >= ? AND context_seq <= ?", (from_seq, end)
    )


NO_END = 2**62  # past any context_seq
STAMPS_READ = 64  # the newest rows ``stamps`` reads first; each page after twice the last
STAMPS_READ_MOST = 4096
STAMPS_PAGE = (
    "WITH page AS MATERIALIZED (SELECT context_seq, content_json FROM messages"
    " WHERE session_id = ? AND context_seq < ? ORDER BY context_seq DESC LIMIT ?)"
    " SELECT context_seq, CASE WHEN content_json LIKE ? THEN content_json END"
    " FROM page ORDER BY context_seq DESC"
)


def stamps(conn: sqlite3.Connection, session_id: str, key: str) -> Iterator[tuple[int, JSONObject]]:
    """(seq, data[key]) of the session's rows whose data holds ``key``, newest first, read
    a page of rows at a time along the session's index: a transcript import finds where the
    last one ended without reading the session. The page is taken first and filtered after
    (MATERIALIZED), so no planner trades the index walk for a scan of every session's rows,
    and a server's client, which fetches a statement's every row, gets one page. The pages
    grow, so a long session holding no stamp is read in a few dozen statements."""
    before, page = NO_END, STAMPS_READ
    while True:
        rows = conn.execute(STAMPS_PAGE, (session_id, before, page, f'%"{key}"%')).fetchall()
        for seq, content in rows:
            value = jsonio.loads(content).get(key) if content is not None else None
            if isinstance(value, dict):
                yield seq, value
        if len(rows) < page:
            return
        before, page = rows[-1][0], min(2 * page, STAMPS_READ_MOST)


def kept_reply_source(agent: str) -> str:
    """The source of a final reply a Stop hook kept from its payload before the agent's
    transcript held it (``claude_stop``): it can stand after calls whose results the file
    had not flushed yet, and answers none of them."""
    return agent + KEPT_REPLY_SUFFIX


def is_kept_reply(row: MessageRow) -> bool:
    return row.source.endswith(KEPT_REPLY_SUFFIX)


def last_imported_reply(conn: sqlite3.Connection, session_id: str) -> int:
    """The number of the session's newest reply an import wrote, not a kept one (0 when
    there is none)."""
    found = conn.execute(
        "SELECT MAX(context_seq) FROM messages WHERE session_id = ? AND type = 'assistant'"
        " AND source NOT LIKE ? ESCAPE '\\'",
        (session_id, "%" + KEPT_REPLY_SUFFIX.replace("_", "\\_")),
    ).fetchone()
    return int(found[0] or 0)


def waits_for_results(conn: sqlite3.Connection, session_id: str) -> bool:
    """Whether the session's newest row is a reply whose calls have no result yet: what came
    next is only in the agent's transcript (a Stop found it unflushed and left it there)."""
    found = conn.execute(
        "SELECT type, content_json FROM messages WHERE session_id = ?"
        " ORDER BY context_seq DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return bool(found) and found[0] == "assistant" and '"tool_calls"' in (found[1] or "")


def messages_of_type(conn: sqlite3.Connection, session_id: str, kind: str) -> list[MessageRow]:
    """Every row of one type in a session, in order (the user's own words, say)."""
    return _read_messages(conn, session_id, "type = ?", (kind,))


def newest_of_type(
    conn: sqlite3.Connection,
    session_id: str,
    kind: str,
    count: int,
    until: str | None = None,
) -> list[MessageRow]:
    """The session's ``count`` latest rows of type ``kind`` (made at or before ``until``,
    when given), in order: the (session, type, seq) index read backwards from the end, so
    the time grows with ``count`` and the rows after ``until``, not with the session."""
    match = "type = ?" if until is None else "type = ? AND created_at <= ?"
    params = (kind,) if until is None else (kind, until)
    where = (
        f"{match} AND context_seq >= COALESCE((SELECT context_seq FROM messages"
        f" WHERE session_id = ? AND {match} ORDER BY context_seq DESC LIMIT 1 OFFSET ?), 0)"
    )
    return _read_messages(conn, session_id, where, (*params, session_id, *params, count - 1))


def first_of_type(conn: sqlite3.Connection, session_id: str, kind: str) -> list[MessageRow]:
    """The session's first row of type ``kind`` (none or one)."""
    where = "type = ? AND context_seq = (SELECT MIN(context_seq) FROM messages"
    where += " WHERE session_id = ? AND type = ?)"
    return _read_messages(conn, session_id, where, (kind, session_id, kind))


def first_and_newest(
    conn: sqlite3.Connection, session_id: str, kind: str, newest: int
) -> list[MessageRow]:
    """The session's first row of type ``kind`` and its ``newest`` latest ones, in order:
    what a choice among a long session's messages reads, in time that does not grow with
    the session (two reads: one with an OR of the two scanned the whole session)."""
    rows = newest_of_type(conn, session_id, kind, newest)
    if len(rows) < newest:
        return rows  # the whole session's, the first among them
    head = first_of_type(conn, session_id, kind)
    return [*head, *rows] if head and head[0].seq < rows[0].seq else rows


def last_text(conn: sqlite3.Connection, session_id: str, kind: str) -> str | None:
    """The text of the session's newest row of type ``kind``, if any."""
    found = conn.execute(
        "SELECT content_text FROM messages WHERE session_id = ? AND type = ?"
        " ORDER BY context_seq DESC LIMIT 1",
        (session_id, kind),
    ).fetchone()
    return found[0] if found else None


def messages_at(conn: sqlite3.Connection, session_id: str, seqs: Iterable[int]) -> list[MessageRow]:
    """The rows with these numbers, in order; numbers with no row are skipped."""
    wanted = sorted(set(seqs))
    found: list[MessageRow] = []
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        found += _read_messages(conn, session_id, f"context_seq IN ({marks})", tuple(chunk))
    return found


class SqliteRecord:
    """The record in a vybe store; ``origin``: who starts the sessions it writes first, and
    where (a function of the session id for a writer of many clients' sessions: the proxy)."""

    def __init__(
        self, store: Store, origin: Origin | Callable[[str], Origin] | None = None
    ) -> None:
        self.store = store
        self.origin = origin

    def append(self, message: MessageRow) -> MessageRow:
        origin = self.origin
        if callable(origin):
            origin = origin(message.session_id)
        return append_message(self.store, message, origin=origin)

    def messages(
        self, session_id: str, from_seq: int = 1, to_seq: int | None = None
    ) -> list[MessageRow]:
        return list_messages(self.store.conn, session_id, from_seq, to_seq)

    def messages_at(self, session_id: str, seqs: Iterable[int]) -> list[MessageRow]:
        return messages_at(self.store.conn, session_id, seqs)

    def latest_checkpoint(self, session_id: str) -> Checkpoint | None:
        from vybe.store import checkpoints

        return checkpoints.latest_checkpoint(self.store.conn, session_id)

    def save(
        self, attempt: Attempt, checkpoint: Checkpoint | None
    ) -> tuple[Attempt, Checkpoint | None]:
        from vybe.store import checkpoints

        return checkpoints.save_attempt(self.store, attempt, checkpoint)

    def attempts(self, session_id: str) -> list[Attempt]:
        from vybe.store import checkpoints

        return checkpoints.list_attempts(self.store.conn, session_id)
