"""Hand-off context in SQL: what a task_assigned event carried, and the record's places it
is built from (the session that worked on the task, when the sender began it and when it
began another, its tool failures there)."""

from __future__ import annotations

import sqlite3

from vybe import jsonio, privacy
from vybe.errors import VybeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

FAILURES_READ = 50  # the sender's newest failures read to find this session's
DEFAULT_TEAM = "default"  # a file's one team


def team_exists(conn: sqlite3.Connection, dialect: str, team: str) -> bool:
    """Whether ``team`` exists, though the asker may see none of its rows (a server's
    vybe_team_exists, migration 0021); a file has the one team, ``default``."""
    if dialect == "sqlite":
        return team == DEFAULT_TEAM
    return bool(conn.execute("SELECT vybe_team_exists(?)", (team,)).fetchone()[0])


def known_only_elsewhere(conn: sqlite3.Connection, dialect: str, agent: str, team: str) -> bool:
    """Whether ``agent`` is an agent of some other team and not of ``team`` (a file has one
    team, so never)."""
    if dialect == "sqlite":
        return False
    here = conn.execute(
        "SELECT 1 FROM agent_state WHERE agent_name = ? AND team = ?", (agent, team)
    ).fetchone()
    if here is not None:
        return False
    return bool(conn.execute("SELECT vybe_agent_known(?)", (agent,)).fetchone()[0])


def carry(conn: sqlite3.Connection, task_id: str, event_id: int, to_team: str) -> None:
    """Give the task, its hand-off event ``event_id`` (added by this transaction) and that
    hand-off's context to ``to_team`` (a server's, which ``team_exists`` said is there):
    only those rows. What ties the task to its old team's other rows goes (its dependencies
    both ways, its project); its notes, artifacts and older events stay with the old team."""
    row = conn.execute("SELECT vybe_hand_over(?, ?, ?)", (task_id, event_id, to_team)).fetchone()
    if not row[0]:  # the server checks again what the caller did, on its own rows
        raise VybeError(
            f"the server refused to hand task {task_id} to team {to_team}",
            code="HANDOFF_REFUSED",
            context={"task_id": task_id, "team": to_team},
            suggested_action="hand it off as a writer of the task's team",
        )


def insert(
    conn: sqlite3.Connection,
    event_id: int,
    task_id: str,
    from_agent: str,
    to_agent: str,
    context: JSONObject,
    at: str,
) -> None:
    conn.execute(
        "INSERT INTO handoff_context (event_id, task_id, from_agent, to_agent, session_id,"
        " context, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            event_id,
            task_id,
            from_agent,
            to_agent,
            context.get("session_id"),
            privacy.scrub_json(jsonio.dumps(context, ensure_ascii=False)),
            at,
        ),
    )


def for_task(conn: sqlite3.Connection, task_id: str, to_agent: str) -> JSONObject | None:
    """The newest context handed to ``to_agent`` with this task, if any."""
    row = conn.execute(
        "SELECT event_id, from_agent, created_at, context FROM handoff_context"
        " WHERE task_id = ? AND to_agent = ? ORDER BY event_id DESC LIMIT 1",
        (task_id, to_agent),
    ).fetchone()
    if row is None:
        return None
    context = jsonio.loads(row["context"])
    return {
        **context,
        "event_id": row["event_id"],
        "from_agent": row["from_agent"],
        "at": row["created_at"],
    }


TAKEN = "kind IN ('task_started', 'task_claimed')"  # the events that make a task an agent's focus


def _session_of(metadata: str | None) -> str | None:
    """The record session a begin or claim event names (the command's), if any."""
    meta = jsonio.loads(metadata) if metadata else {}
    session = meta.get("session_id") if isinstance(meta, dict) else None
    return session if isinstance(session, str) else None


def taken(conn: sqlite3.Connection, agent: str, task_id: str) -> tuple[int, str, str | None] | None:
    """The id, time and record session (when the command's agent CLI named it) of the
    agent's newest begin or claim of the task (one index range)."""
    row = conn.execute(
        "SELECT id, created_at, metadata FROM events WHERE task_id = ? AND agent_name = ?"
        f" AND {TAKEN} ORDER BY id DESC LIMIT 1",
        (task_id, agent),
    ).fetchone()
    return (row["id"], row["created_at"], _session_of(row["metadata"])) if row else None


TAKEN_READ = 50  # another task's begins and claims read at a time, looking for a span's end


def next_taken(
    conn: sqlite3.Connection, agent: str, task_id: str, after: int, session_id: str
) -> str | None:
    """When the agent next began or claimed another task after event ``after``, in this
    record session or in one unknown (an event that names another session was another
    window of the agent's), if it did."""
    while True:
        rows = conn.execute(
            "SELECT id, created_at, metadata FROM events WHERE agent_name = ? AND id > ?"
            f" AND {TAKEN} AND task_id IS NOT ? ORDER BY id LIMIT ?",
            (agent, after, task_id, TAKEN_READ),
        ).fetchall()
        for row in rows:
            taken_in = _session_of(row["metadata"])
            if taken_in is None or taken_in == session_id:
                created: str = row["created_at"]
                return created
        if len(rows) < TAKEN_READ:
            return None
        after = rows[-1]["id"]


def _failure_text(message: str, preview: object) -> str:
    """The event's message (``Bash: Exit code 2``), then the error's preview, whose first
    line the message already holds."""
    if not isinstance(preview, str) or not preview:
        return message
    first, _, rest = preview.partition("\n")
    if message.endswith(first):
        return f"{message}\n{rest}" if rest else message
    return f"{message}\n{preview}"


def tool_failures(
    conn: sqlite3.Connection, agent: str, session_id: str, until: str, limit: int
) -> list[str]:
    """The messages of this agent's newest tool failures in a session at or before ``until``
    (the hooks' session id is the record session's after its ``claude:`` / ``codex:``),
    newest last."""
    rows = conn.execute(
        "SELECT message, metadata FROM events WHERE kind = 'tool_failure' AND agent_name = ?"
        " AND created_at <= ? ORDER BY id DESC LIMIT ?",
        (agent, until, FAILURES_READ),
    ).fetchall()
    bare = session_id.split(":", 1)[-1]
    found = []
    for row in rows:
        meta = jsonio.loads(row["metadata"]) if row["metadata"] else {}
        if isinstance(meta, dict) and meta.get("session_id") in (bare, session_id):
            found.append(_failure_text(row["message"], meta.get("error_preview")))
        if len(found) == limit:
            break
    return found[::-1]
