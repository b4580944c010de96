"""What agent hooks change in the store: events of a session, the project, linked tasks; and
what they read of it. The row modules are imported by what uses them: a session's end, a
compaction or a turn's import reads no task."""

from __future__ import annotations

import sqlite3

from vybe import clock, limits
from vybe.digest import sha256_hex
from vybe.store import Store
from vybe.store import events as event_rows
from vybe.store.base import REQUEST_ID_MAX, args_digest
from vybe.text import shorten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from vybe.jsonio import JSONObject
    from vybe.store.record import MessageRow

# What Claude Code sets in its Bash tool's environment: the session a command runs in.
CLAUDE_SESSION_ENV = "CLAUDE_CODE_SESSION_ID"
# What the agent CLIs give the commands their agents run (found by running `env` in a real
# Claude Code 2.1 Bash call and a Codex 0.171 exec_command): the variable and its session's
# prefix in the record.
AGENT_SESSIONS = ((CLAUDE_SESSION_ENV, "claude:"), ("CODEX_THREAD_ID", "codex:"))
SESSION_VALUE_MAX = 128
# The ledger name commits are logged under: once per sha, whichever agent saw it first.
COMMIT_LEDGER = "git"


def request_id(target: str, session_id: str, event: str, *parts: object) -> str:
    """A hook's request id, derived from its agent, session and event (and ``parts``: a
    dict, such as a payload, counts by its digest), so a retried hook replays; a long one is
    hashed to stay within the request-id limit."""
    named = [args_digest(p) if isinstance(p, dict) else str(p) for p in parts]
    rid = "_".join(["hook", target, session_id, event, *named])
    if len(rid) <= REQUEST_ID_MAX:
        return rid
    return f"hook_{target}_{sha256_hex(rid.encode('utf-8', 'surrogatepass'))}"


def clip(text: str, limit: int, *, stored: bool = False) -> str:
    """Cut on a character boundary, saying how much was left out; scrubbed first where it
    cuts, since a secret cut in two is one the store's filter no longer knows (``stored``:
    text read from the store, scrubbed when it was written)."""
    if len(text) <= limit:
        return text
    if not stored:
        from vybe import privacy

        text = privacy.scrub(text)
    return shorten(text, limit, f"… [{len(text) - limit} more characters]")


def log_event(
    store: Store,
    agent: str,
    request_id: str,
    *,
    kind: str,
    message: str,
    project_id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> JSONObject:
    """Append one event once per request id (a retried hook does not log twice)."""
    message = clip(message, limits.MESSAGE_MAX)
    args = {"kind": kind, "message": message, "project_id": project_id, "metadata": metadata}

    def run(conn: sqlite3.Connection) -> JSONObject:
        event = event_rows.NewEvent(kind, agent, message, None, project_id, metadata)
        return {"event_id": event_rows.insert(conn, event, clock.now_iso())}

    return store.idempotent(agent, request_id, "hook.event", args, run)


def agent_sessions(agent: str, environ: Mapping[str, str]) -> list[str]:
    """The record sessions a command may run in, as its agent CLI names them; the agent's
    own product's first (a Codex run from Claude's Bash inherits Claude's variable too)."""
    ordered = sorted(AGENT_SESSIONS, key=lambda v: not agent.startswith(v[1].rstrip(":")))
    found = [(prefix, environ.get(name, "")) for name, prefix in ordered]
    return [prefix + value for prefix, value in found if _session_like(value)]


def _session_like(value: str) -> bool:
    """An id as the agent CLIs make them (a UUID): anything else in the variable is ignored."""
    return (
        0 < len(value) <= SESSION_VALUE_MAX and value.replace("-", "").isalnum() and value.isascii()
    )


def complete_linked_task(
    store: Store,
    agent: str,
    request_id: str,
    *,
    vybe_task_id: str | None,
    agent_task_id: str,
    subject: str,
    session_id: str,
    project_id: str,
) -> JSONObject:
    """Close the vybe task named by id, or the one linked to this session's task
    ``agent_task_id`` in this project (or in none); never the focus by default. A completion
    that closes no vybe task is logged all the same: an ``agent_task_completed`` event naming
    the agent's own task (its id, session and subject)."""
    from vybe.actions.tasks import LINK_KEY, LINK_SESSION_KEY, change_status
    from vybe.store import tasks as task_rows

    link = {LINK_KEY: agent_task_id, LINK_SESSION_KEY: session_id}
    subject = clip(subject, limits.TITLE_MAX)

    def run(conn: sqlite3.Connection) -> JSONObject:
        task = task_rows.get(conn, vybe_task_id) if vybe_task_id else None
        if task is None and agent_task_id:
            task = task_rows.find_open_by_metadata(conn, link, project_id)
        if task is not None and task["status"] != "completed":
            change_status(conn, agent, task, "completed", None, note=f"{agent} task completed")
            return {"task_id": task["id"], "closed": True}
        said = f": {subject}" if subject else ""
        message = f"{agent} task {agent_task_id or '?'} completed{said}"
        event = event_rows.NewEvent(
            "agent_task_completed", agent, message, None, project_id, {**link, "subject": subject}
        )
        event_rows.insert(conn, event, clock.now_iso())
        return {"task_id": task["id"] if task else None, "closed": False}

    args = {"vybe_task_id": vybe_task_id, **link, "subject": subject, "project_id": project_id}
    return store.idempotent(agent, request_id, "hook.task_completed", args, run)


def log_commit(
    store: Store, agent: str, commit: dict[str, str], *, project_id: str, session_id: str
) -> JSONObject:
    """One ``commit`` event (sha, branch, subject) linked to the agent's focus task, once
    per sha whichever session or agent reports it."""
    from vybe.store import agents as agent_rows

    sha, subject = commit["sha"], commit["subject"]

    def run(conn: sqlite3.Connection) -> JSONObject:
        state = agent_rows.get(conn, agent)
        task_id = state["focus_task_id"] if state else None
        metadata = {**commit, "session_id": session_id}
        message = clip(f"{sha[:12]} {subject}", limits.MESSAGE_MAX)
        event = event_rows.NewEvent("commit", agent, message, task_id, project_id, metadata)
        return {"event_id": event_rows.insert(conn, event, clock.now_iso()), "task_id": task_id}

    return store.idempotent(COMMIT_LEDGER, f"commit_{sha}", "hook.commit", {"sha": sha}, run)


# --- what the hooks read, each in one read transaction --------------------------------


def focus_task(store: Store, agent: str) -> Any:
    """The agent's focus task, or None when it has none."""
    from vybe.store import agents as agent_rows
    from vybe.store import tasks as task_rows

    with store.snapshot() as conn:
        state = agent_rows.get(conn, agent)
        focus = state["focus_task_id"] if state else None
        return task_rows.get(conn, focus) if focus else None


def persons_messages(store: Store, session_id: str, window: int) -> tuple[list[MessageRow], int]:
    """The person's first message of the session and their newest ``window``, and how many
    the session holds (counted only when there are more than were read)."""
    from vybe.store import receipts
    from vybe.store import record as record_rows

    with store.snapshot() as conn:
        rows = record_rows.first_and_newest(conn, session_id, "user", window)
        typed = receipts.typed_messages(conn, session_id) if len(rows) > window else len(rows)
    return rows, typed


def receipt_open(store: Store, session_id: str, compactor: str) -> bool:
    """Whether the session has a compaction of ``compactor`` its hooks have not completed."""
    from vybe.store import receipts

    return store.read_one(lambda conn: receipts.is_open(conn, session_id, compactor))


def waits_for_results(store: Store, session_id: str) -> bool:
    """Whether the session's newest reply waits for the results of its tool calls."""
    from vybe.store import record as record_rows

    return store.read_one(lambda conn: record_rows.waits_for_results(conn, session_id))


def last_text(store: Store, session_id: str, kind: str) -> str | None:
    """The text of the session's last message of ``kind`` (user, assistant)."""
    from vybe.store import record as record_rows

    return store.read_one(lambda conn: record_rows.last_text(conn, session_id, kind))
