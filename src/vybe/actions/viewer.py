"""What `vybe ui`'s pages read: each page's rows in one snapshot of the store, pages by key
(the last row's key names the next page), never a whole session at once."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from vybe.context.labels import HARNESS_PREFIX
from vybe.store import Store, viewer

PAGE = 50
ORIGINS = 100  # the agents and the projects the sessions page offers as filters, each


def sessions(
    store: Store, before: str | None, filters: dict[str, str], limit: int = PAGE
) -> dict[str, Any]:
    """A page of sessions, newest first, of the ``filters`` given (client: claude, codex,
    gemini, opencode, aider, proxy or chat; agent; project); ``next`` is the key of the page
    after it; ``agents`` and ``projects`` what the filters offer."""
    with store.snapshot() as conn:
        rows = viewer.session_page(conn, before, limit + 1, filters)
        origins = viewer.session_origins(conn, ORIGINS)
    return {
        "sessions": rows[:limit],
        "next": rows[limit - 1]["id"] if len(rows) > limit else None,
        **origins,
    }


def session(store: Store, session_id: str, after: int, limit: int = PAGE) -> dict[str, Any]:
    """A page of a session's timeline after ``after``, every checkpoint of it, its checkpoint
    attempts and the receipts of the client's own compactions, each with the person's
    messages it names."""
    with store.snapshot() as conn:
        rows = viewer.timeline(conn, session_id, after, limit + 1)
        marks = viewer.checkpoints(conn, session_id)
        tried = viewer.attempts(conn, session_id)
        receipts = [_receipt(conn, session_id, r) for r in viewer.receipts(conn, session_id)]
        if receipts:
            _summaries(conn, session_id, receipts)
    more = len(rows) > limit
    return {
        "messages": rows[:limit],
        "checkpoints": marks,
        "attempts": tried,
        "receipts": receipts,
        "next": rows[limit - 1]["context_seq"] if more else None,
    }


RECEIPT_LISTS = ("verbatim", "kept", "cut", "released")


def _receipt(conn: Any, session_id: str, row: dict[str, Any]) -> dict[str, Any]:
    """A receipt with each of its person's messages as (list, seq, text), in record order."""
    named = {name: [int(seq) for seq in json.loads(row[name] or "[]")] for name in RECEIPT_LISTS}
    texts = viewer.typed_messages(conn, session_id, sorted({s for v in named.values() for s in v}))
    fates = sorted((seq, name) for name, seqs in named.items() for seq in seqs)
    return {**row, "messages": [(name, seq, texts.get(seq, "")) for seq, name in fates]}


# The source line of a client's own compaction summary, where the record has it (a Codex
# rollout's and a Claude Code transcript's, imported: the COMPACTION of
# vybe.integrations.importers.codex_rollout and of claude_transcript), then its client.
SUMMARY_SOURCE = f"{HARNESS_PREFIX} compaction "


def _moment(at: str) -> datetime:
    return datetime.fromisoformat(at.replace("Z", "+00:00"))


def _summaries(conn: Any, session_id: str, receipts: list[dict[str, Any]]) -> None:
    """Each receipt's ``summary``: its compactor's own summary (the text without the source
    line) recorded nearest in time to it, of those nearer to it than to any other receipt
    of that compactor; None where the record has none. Nearest, not before: Codex writes
    its summary just before the compaction's line, Claude Code just after its boundary,
    and a receipt the hooks open (PreCompact) comes before either."""
    found = viewer.harness_inputs(conn, session_id, SUMMARY_SOURCE)
    nearest: dict[int, tuple[float, str]] = {}  # receipt's place: (seconds away, summary)
    for summary in found:
        client = summary["source"][len(SUMMARY_SOURCE) :].partition(" ")[0]
        at = _moment(summary["created_at"])
        gaps = [
            (abs((at - _moment(r["created_at"])).total_seconds()), n)
            for n, r in enumerate(receipts)
            if r["compactor"] == client
        ]
        if gaps:
            gap, place = min(gaps)
            if place not in nearest or gap < nearest[place][0]:
                nearest[place] = (gap, summary["content_text"].partition("\n")[2])
    for n, receipt in enumerate(receipts):
        receipt["summary"] = nearest[n][1] if n in nearest else None


def tasks(
    store: Store, status: str | None = None, before: str | None = None, limit: int = PAGE
) -> dict[str, Any]:
    """The board: up to ``limit`` tasks of each status (of ``status`` alone, after the task
    ``before`` names, when given), the dependencies among them, and for each status the key
    of its next page (``updated_at|id`` of its last task shown) where there is one."""
    with store.snapshot() as conn:
        rows = viewer.task_board(conn, limit + 1, status, before)
        by_status: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            by_status.setdefault(row["status"], []).append(row)
        shown = [r for group in by_status.values() for r in group[:limit]]
        edges = viewer.dependencies(conn, [r["id"] for r in shown])
    following = {
        s: f"{group[limit - 1]['updated_at']}|{group[limit - 1]['id']}"
        for s, group in by_status.items()
        if len(group) > limit
    }
    return {"tasks": shown, "dependencies": edges, "next": following}


def memory(
    store: Store, filters: dict[str, str], after: str | None, limit: int = PAGE
) -> dict[str, Any]:
    """A page of live memory entries, filtered by scope and kind."""
    with store.snapshot() as conn:
        rows = viewer.memory_page(conn, filters, after, limit + 1)
    return {"memory": rows[:limit], "next": rows[limit - 1]["id"] if len(rows) > limit else None}


def events(
    store: Store, filters: dict[str, str], before: int | None, limit: int = PAGE
) -> dict[str, Any]:
    """A page of the event log, newest first, filtered by agent, kind and task."""
    with store.snapshot() as conn:
        rows = viewer.event_page(conn, filters, before, limit + 1)
    return {"events": rows[:limit], "next": rows[limit - 1]["id"] if len(rows) > limit else None}


def high_water(store: Store) -> tuple[int, int, int]:
    """A mark that moves with every write of a message, event or checkpoint."""
    with store.snapshot() as conn:
        return viewer.high_water(conn)


def search(store: Store, words: str, cursor: str | None) -> dict[str, Any]:
    """A page of hits for ``words``: the engine and syntax of `vybe search`."""
    from vybe.actions.search import search as run
    from vybe.store.search import SearchQuery

    return run(store, SearchQuery(text=words, cursor=cursor))
