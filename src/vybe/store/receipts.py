"""Compaction receipts in SQL: the harnesses' compactions (compaction_receipts) and, for
counting, vybe's own accepted checkpoints (checkpoints)."""

from __future__ import annotations

import sqlite3

from vybe import clock, jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject
    from vybe.store.base import Store

LISTS = ("verbatim", "kept", "cut", "released")


def open_receipt(
    store: Store,
    session_id: str,
    agent: str,
    compactor: str,
    trigger: str,
    tokens_before: int | None,
    once: tuple[str, str] | None = None,
    project: str | None = None,
) -> int:
    """A compaction the harness is about to do (PreCompact): its id. ``once``: (agent,
    request id) it is opened once by (``Store.transact_once``); ``project``: the session's,
    kept when the receipt starts the session."""

    from vybe.store.record import Origin, start_session  # a writer's: statusline reads only

    def body(conn: sqlite3.Connection) -> JSONObject:
        now = clock.now_iso()
        start_session(conn, session_id, now, Origin(agent, project))
        opened = conn.execute(
            "INSERT INTO compaction_receipts (session_id, agent_name, compactor, trigger,"
            " tokens_before, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (session_id, agent, compactor, trigger, tokens_before, now),
        ).fetchone()[0]
        return {"id": opened}

    args = {"session_id": session_id, "compactor": compactor, "trigger": trigger}
    return int(store.transact_once(once, "open receipt", args, body)["id"])


def complete(
    store: Store,
    session_id: str,
    agent: str,
    compactor: str,
    messages: dict[str, list[int]],
    tokens: tuple[int | None, int | None],
    once: tuple[str, str] | None = None,
    project: str | None = None,
) -> JSONObject:
    """What the compaction kept and what vybe gave back (SessionStart(compact)), on the
    newest receipt PreCompact opened; a new one (trigger unknown) when none is open.
    ``tokens``: before and after, where the harness says (None keeps what PreCompact saw);
    ``once``: (agent, request id) it is completed once by (``Store.transact_once``);
    ``project`` as ``open_receipt``'s. Returns what its line says (vybe.context.receipt):
    the lists, and the session's ``compactions`` with this one, counted in the same
    transaction (a read of its own cost the hook three statements more)."""

    from vybe.store.record import Origin, start_session  # a writer's: statusline reads only

    def body(conn: sqlite3.Connection) -> JSONObject:
        now = clock.now_iso()
        start_session(conn, session_id, now, Origin(agent, project))
        found = conn.execute(
            "SELECT id FROM compaction_receipts WHERE session_id = ? AND compactor = ?"
            " AND completed = 0 ORDER BY id DESC LIMIT 1",
            (session_id, compactor),
        ).fetchone()
        if found is None:
            found = conn.execute(
                "INSERT INTO compaction_receipts (session_id, agent_name, compactor, trigger,"
                " created_at) VALUES (?, ?, ?, 'unknown', ?) RETURNING id",
                (session_id, agent, compactor, now),
            ).fetchone()
        lists = {name: sorted(messages.get(name, [])) for name in LISTS}
        conn.execute(
            "UPDATE compaction_receipts SET completed = 1, completed_at = ?,"
            " tokens_before = COALESCE(?, tokens_before), tokens_after = ?,"
            " verbatim = ?, kept = ?, cut = ?, released = ? WHERE id = ?",
            (now, *tokens, *(jsonio.dumps(lists[name]) for name in LISTS), found[0]),
        )
        return {**lists, "compactions": compactions(conn, session_id)}

    args = {"session_id": session_id, "compactor": compactor, "messages": messages}
    return store.transact_once(once, "complete receipt", args, body)


def imported(
    conn: sqlite3.Connection,
    session_id: str,
    agent: str,
    found: Any,
    lists: dict[str, list[int]],
    window: tuple[str, str],
) -> bool:
    """A completed receipt, at the time ``found`` (a transcript's Compaction) happened, for a
    compaction an import came upon; none when its key has one already, or when a receipt the
    hooks made for the same compactor was opened inside ``window`` (the same compaction,
    seen live). Whether it was added."""
    covered = conn.execute(
        "SELECT 1 FROM compaction_receipts WHERE session_id = ? AND compactor = ?"
        " AND source_key IS NULL AND created_at BETWEEN ? AND ? LIMIT 1",
        (session_id, found.compactor, *window),
    ).fetchone()
    if covered is not None:
        return False
    from vybe.store.record import Origin, start_session

    start_session(conn, session_id, found.at, Origin(agent))
    encoded = [jsonio.dumps(sorted(lists.get(name, []))) for name in LISTS]
    added = conn.execute(
        "INSERT INTO compaction_receipts (session_id, agent_name, compactor, trigger,"
        " tokens_before, tokens_after, completed, verbatim, kept, cut, released, created_at,"
        " completed_at, source_key) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (session_id, source_key) WHERE source_key IS NOT NULL DO NOTHING"
        " RETURNING id",
        (
            session_id,
            agent,
            found.compactor,
            found.trigger,
            found.tokens_before,
            found.tokens_after,
            *encoded,
            found.at,
            found.at,
            found.key,
        ),
    ).fetchone()
    return added is not None


def note_tokens(
    store: Store,
    session_id: str,
    compactor: str,
    tokens: tuple[int | None, int | None],
    at: str,
) -> bool:
    """The tokens before and after of the session's newest completed compaction, read from
    the transcript after the hook that completed it (the agent had not flushed its count
    yet): set where its receipt lacks the after and was opened before ``at``, the time the
    transcript gives the compaction (an older compaction's line passed again sets
    nothing); whether one was."""

    def body(conn: sqlite3.Connection) -> bool:
        found = conn.execute(
            "UPDATE compaction_receipts SET tokens_before = COALESCE(?, tokens_before),"
            " tokens_after = ? WHERE id = (SELECT MAX(id) FROM compaction_receipts"
            " WHERE session_id = ? AND compactor = ? AND completed = 1)"
            " AND tokens_after IS NULL AND created_at <= ? RETURNING id",
            (*tokens, session_id, compactor, at),
        ).fetchone()
        return found is not None

    return store.transact(body)


def _receipt(row: sqlite3.Row) -> JSONObject:
    receipt = {key: row[key] for key in row.keys() if key not in LISTS}  # noqa: SIM118 (a Row iterates values)
    receipt["completed"] = bool(receipt["completed"])
    receipt.update((name, jsonio.loads(row[name])) for name in LISTS)
    return receipt


def harness_receipts(conn: sqlite3.Connection, session_id: str) -> list[JSONObject]:
    """The harness's compactions of a session, oldest first."""
    rows = conn.execute(
        "SELECT * FROM compaction_receipts WHERE session_id = ? ORDER BY id", (session_id,)
    )
    return [_receipt(r) for r in rows.fetchall()]


def compactions(conn: sqlite3.Connection, session_id: str) -> int:
    """How many compactions a session has had: the harness's that completed (a PreCompact
    whose compaction never came back is none) and vybe's accepted checkpoints."""
    count: int = conn.execute(
        "SELECT (SELECT COUNT(*) FROM compaction_receipts WHERE session_id = ? AND completed = 1)"
        " + (SELECT COUNT(*) FROM checkpoints WHERE session_id = ?)",
        (session_id, session_id),
    ).fetchone()[0]
    return count


def is_open(conn: sqlite3.Connection, session_id: str, compactor: str) -> bool:
    """Whether a compaction of ``compactor`` was opened and not completed yet."""
    found = conn.execute(
        "SELECT 1 FROM compaction_receipts WHERE session_id = ? AND compactor = ?"
        " AND completed = 0 LIMIT 1",
        (session_id, compactor),
    ).fetchone()
    return found is not None


def last_receipt(conn: sqlite3.Connection, session_id: str) -> JSONObject | None:
    """The newest completed harness receipt of a session, if any."""
    row = conn.execute(
        "SELECT * FROM compaction_receipts WHERE session_id = ? AND completed = 1"
        " ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return _receipt(row) if row else None


def typed_then(conn: sqlite3.Connection, session_id: str, receipt: JSONObject) -> int:
    """How many messages the person had typed at a harness's compaction: up to the newest
    its receipt lists (the choice reads the first and the newest; older ones, in the record
    only, are in no list)."""
    listed = [seq for name in LISTS for seq in receipt[name]]
    return typed_messages(conn, session_id, max(listed)) if listed else 0


def typed_messages(conn: sqlite3.Connection, session_id: str, up_to: int | None = None) -> int:
    """How many of the person's messages a session's record holds, numbered up to ``up_to``
    (all of them when None). In time that does not grow with the session: the count the
    record keeps (session_typed), less those after ``up_to`` (one index range over them)."""
    found = conn.execute(
        "SELECT typed FROM session_typed WHERE session_id = ?", (session_id,)
    ).fetchone()
    typed = int(found[0]) if found else 0
    if up_to is None or not typed:
        return typed
    after: int = conn.execute(
        "SELECT COUNT(*) FROM messages WHERE session_id = ? AND type = 'user' AND context_seq > ?",
        (session_id, up_to),
    ).fetchone()[0]
    return typed - after
