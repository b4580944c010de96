"""Resume: events since the cursor, the focus decision and the brief; the cursor only moves
forward, by CAS on the agent's state, retried when another process moved it first."""

from __future__ import annotations

import os
import sqlite3
import time
from functools import partial

from vybe import clock, config
from vybe.actions import brief as briefs
from vybe.actions import focus as focus_rules
from vybe.errors import InvalidInput, VersionConflict
from vybe.store import CHECKED, Store
from vybe.store import agents as agent_rows
from vybe.store import brief as brief_rows
from vybe.store import memory as memory_rows
from vybe.store import projects as project_rows
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

MAX_LIMIT = 1000
CAS_ATTEMPTS = 8


class _Stale(Exception):
    """The agent's state changed between the read and the write: plan again."""


class Plan(Row):
    """Everything a resume decides, computed inside one read snapshot."""

    __slots__ = ()
    agent: str
    state: JSONObject | None
    project_id: str | None
    focus: focus_rules.Focus
    deltas: list[JSONObject]
    old_cursor: int
    new_cursor: int
    brief: JSONObject
    prompt: briefs.Prompt

    def result(self, *, peek: bool) -> JSONObject:
        return {
            "agent_name": self.agent,
            "peek": peek,
            "old_cursor": self.old_cursor,
            "new_cursor": self.old_cursor if peek else self.new_cursor,
            "deltas": self.deltas,
            "delta_count": len(self.deltas),
            **self.focus.as_dict(),
            "focus_project_id": self.project_id,
            "brief": self.brief,
            "prompt": self.prompt.text,
        }


def project_id_for(project_dir: str) -> str:
    """A project is named by its folder's absolute path."""
    if not project_dir.strip() or "\x00" in project_dir:
        raise InvalidInput("--project-dir must be a folder path", context={"field": "project_dir"})
    return os.path.abspath(os.path.expanduser(project_dir))


def _check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(
            f"limit must be within 1..{MAX_LIMIT}", context={"field": "limit", "value": limit}
        )


def plan(
    conn: sqlite3.Connection,
    agent: str,
    *,
    project_id: str | None = None,
    focus_task_id: str | None = None,
    limit: int = MAX_LIMIT,
    words_given: bool = False,
    digested: bool = True,
) -> Plan:
    """Read the state and decide: deltas, focus, brief and prompt. Writes nothing.
    ``words_given``: the person's words go beside the brief (a compaction's context gives
    them back verbatim), so the brief leaves them out; ``digested`` as ``briefs.finish``."""
    state = agent_rows.get(conn, agent)
    if project_id is None and state is not None:
        project_id = state["focus_project_id"]
    head_id, head_at = brief_rows.head(conn)
    cursor = int(state["last_seen_event_id"]) if state else 0
    deltas = brief_rows.deltas(conn, cursor, limit, agent)
    new_cursor = deltas[-1]["id"] if len(deltas) == limit else max(cursor, head_id)
    focus = focus_rules.decide(conn, agent, state, project_id, focus_task_id)
    brief_project_id = project_id or (focus.task["project_id"] if focus.task else None)
    project = project_rows.get(conn, brief_project_id) if brief_project_id else None
    packet = briefs.build(
        conn,
        task=focus.task,
        project=project,
        as_of_event_id=head_id,
        as_of=head_at,
        agent=agent,
        words_given=words_given,
    )
    if words_given:
        packet = briefs.without_words(packet)
    brief, prompt = briefs.finish(packet, config.command_line(agent), digested=digested)
    return Plan(agent, state, project_id, focus, deltas, cursor, new_cursor, brief, prompt)


def peek(
    store: Store,
    agent: str,
    *,
    project_dir: str | None = None,
    focus_task_id: str | None = None,
    limit: int = MAX_LIMIT,
) -> JSONObject:
    """What a resume would return, with nothing written: no cursor, no access count, no row."""
    _check_limit(limit)
    project_id = project_id_for(project_dir) if project_dir is not None else None
    with store.snapshot() as conn:
        return plan(
            conn, agent, project_id=project_id, focus_task_id=focus_task_id, limit=limit
        ).result(peek=True)


def _persist(
    conn: sqlite3.Connection, *, planned: Plan, project_dir: str | None, count_reads: bool
) -> JSONObject:
    at = clock.now_iso()
    # The plan holds if the row is as it was read; a missing row reads as a new one, so an
    # agent's process that made and moved the row meanwhile makes this plan stale.
    expected = planned.state["version"] if planned.state else agent_rows.NEW_VERSION
    if planned.state is None:
        agent_rows.ensure(conn, planned.agent, at)
    task_id = planned.focus.task["id"] if planned.focus.task else None
    if not agent_rows.advance(conn, planned.agent, expected, planned.new_cursor, task_id, at):
        raise _Stale
    if project_dir is not None and planned.project_id is not None:
        name = os.path.basename(planned.project_id) or "/"
        project_rows.add_missing(conn, planned.project_id, name, at)
        # The CAS above held: the row's project is still the one the plan read.
        if planned.state is None or planned.state["focus_project_id"] != planned.project_id:
            agent_rows.set_focus_project(conn, planned.agent, planned.project_id, at)
    if count_reads:
        memory_rows.touch(conn, planned.prompt.memory_ids, at, deferred=True)
    return planned.result(peek=False)


def resume(
    store: Store,
    agent: str,
    request_id: str | None,
    *,
    project_dir: str | None = None,
    focus_task_id: str | None = None,
    limit: int = MAX_LIMIT,
    count_reads: bool = True,
    words_given: bool = False,
    digested: bool = True,
) -> JSONObject:
    """Plan in a snapshot, then commit the cursor and focus by CAS; a replay returns the first.

    ``request_id`` None (a hook's resume: nobody could replay it) keeps no copy of the result
    in the idempotency ledger; ``count_reads`` False (a brief a hook injects, not one the
    agent asked for) leaves the access counts of the memory it shows alone. Both keep the
    write to the agent's own row: a few pages, whatever the store's size. ``digested`` False
    (a hook's) leaves out the brief's ``brief_sha256``."""
    _check_limit(limit)
    project_id = project_id_for(project_dir) if project_dir is not None else None
    args = {"project_dir": project_id, "focus": focus_task_id, "limit": limit}
    for attempt in range(CAS_ATTEMPTS):
        with store.snapshot() as conn:
            planned = plan(
                conn,
                agent,
                project_id=project_id,
                focus_task_id=focus_task_id,
                limit=limit,
                words_given=words_given,
                digested=digested,
            )
        persist = partial(
            _persist, planned=planned, project_dir=project_dir, count_reads=count_reads
        )
        try:
            # Every write checks itself (the cursor by CAS, access counts are bumps).
            if request_id is None:
                return store.transact(persist, CHECKED)
            return store.idempotent(agent, request_id, "resume", args, persist, CHECKED)
        except _Stale:
            import random  # only a lost race needs jitter

            time.sleep(min(0.2, 0.005 * 2**attempt) * (0.5 + random.random()))
    raise VersionConflict(
        f"agent {agent}'s state kept changing during resume",
        context={"entity": "agent_state", "id": agent},
        suggested_action="retry the resume",
    )


def current_focus(store: Store, agent: str, *, project_dir: str | None = None) -> JSONObject:
    """The focus a resume would choose now, and the one stored; nothing moves."""
    project_id = project_id_for(project_dir) if project_dir is not None else None
    with store.snapshot() as conn:
        state = agent_rows.get(conn, agent)
        if project_id is None and state is not None:
            project_id = state["focus_project_id"]
        focus = focus_rules.decide(conn, agent, state, project_id)
    return {
        "agent_name": agent,
        **focus.as_dict(),
        "task": focus.task,
        "focus_project_id": project_id,
        "stored_focus_task_id": state["focus_task_id"] if state else None,
        "cursor": int(state["last_seen_event_id"]) if state else 0,
    }
