"""Maintenance with bounded work per call, so a hook can run it: memory gc, folding long
task logs into a summary event, pruning old archived events, a WAL checkpoint."""

from __future__ import annotations

import sqlite3
from collections import Counter
from datetime import timedelta
from functools import partial

from vybe import clock
from vybe.actions import forget, search
from vybe.errors import InvalidInput
from vybe.store import Store
from vybe.store import events as event_rows
from vybe.store import maintain as maintain_rows
from vybe.store import memory as memory_rows
from vybe.store import tasks as task_rows
from vybe.text import shorten
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from vybe.jsonio import JSONObject

SUMMARY_KIND = "events_summarized"


class Options(Row):
    """What one maintenance pass may do. A row, not a dataclass: `vybe schema` loads this
    module for its declaration and would pay for dataclasses and inspect."""

    __slots__ = ()
    gc_limit: int = 500
    threshold: int = 200
    keep: int = 50
    max_tasks: int = 5
    fold_limit: int = 5000
    scan_recent: int = 2000
    retention: timedelta = timedelta(days=30)
    prune_limit: int = 500
    request_retention: timedelta = timedelta(days=maintain_rows.REQUEST_RETENTION_DAYS)
    checkpoint: bool = True
    index_batches: int = 4
    # config.yaml's retention: (kind of row, seconds kept), applied by each round
    kept_for: tuple[tuple[str, float], ...] = ()

    def check(self) -> Options:
        if not 1 <= self.keep < self.threshold:
            raise InvalidInput(
                "keep must be at least 1 and below the summarize threshold",
                context={"keep": self.keep, "threshold": self.threshold},
            )
        for name in ("gc_limit", "max_tasks", "prune_limit"):
            if not 0 <= getattr(self, name) <= 100_000:
                raise InvalidInput(f"{name} must be within 0..100000", context={"field": name})
        return self


def _summary(task: JSONObject, folded: list[JSONObject]) -> tuple[str, JSONObject]:
    kinds = Counter(e["kind"] for e in folded)
    counted = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    first, last = folded[0], folded[-1]
    message = shorten(
        f"Summary of {len(folded)} earlier events of {task['title']!r}"
        f" (#{first['id']}–#{last['id']}): {counted}. Last: {last['message']}",
        4096,
    )
    metadata = {
        "from_id": first["id"],
        "to_id": last["id"],
        "count": len(folded),
        "kinds": dict(sorted(kinds.items())),
        "from": first["created_at"],
        "to": last["created_at"],
    }
    return message, metadata


def _fold(
    conn: sqlite3.Connection, agent: str, task_id: str, options: Options
) -> JSONObject | None:
    """Fold one task's old events into a summary event and archive them, newest kept."""
    if maintain_rows.live_count(conn, task_id, options.threshold + 1) <= options.threshold:
        return None
    task = task_rows.get(conn, task_id)
    folded = maintain_rows.foldable(conn, task_id, options.keep, options.fold_limit)
    if task is None or not folded:
        return None
    message, metadata = _summary(task, folded)
    at = clock.now_iso()
    summary_id = event_rows.insert(
        conn,
        event_rows.NewEvent(
            SUMMARY_KIND, agent, message, task_id, task["project_id"], metadata=metadata
        ),
        at,
    )
    archived = maintain_rows.archive(conn, task_id, folded[0]["id"], folded[-1]["id"], at)
    return {"task_id": task_id, "summary_event_id": summary_id, "archived": archived}


def summarize(store: Store, agent: str, options: Options) -> list[JSONObject]:
    with store.snapshot() as conn:
        candidates = maintain_rows.recent_tasks(conn, options.scan_recent)
    done: list[JSONObject] = []
    for task_id in candidates:
        if len(done) >= options.max_tasks:
            break
        folded = store.transact(partial(_fold, agent=agent, task_id=task_id, options=options))
        if folded:
            done.append(folded)
    return done


def _older_than(
    delete: Callable[[sqlite3.Connection, str, int], int],
    age: timedelta,
    limit: int,
    conn: sqlite3.Connection,
) -> tuple[int, str]:
    """``delete`` what is older than ``age`` by the clock of the transaction it runs in (a
    server store's): how many rows went, and the time they were older than."""
    before = clock.iso(clock.now() - age)
    return delete(conn, before, limit), before


def maintain(
    store: Store, agent: str, options: Options | None = None, request_id: str | None = None
) -> JSONObject:
    """One bounded round of housekeeping; safe to repeat, each step its own transaction.
    With a ``request_id``, a replay returns the first round's result (nothing runs again)."""
    options = (options or Options()).check()
    if request_id is None:
        return _round(store, agent, options)
    args = {
        k: v.total_seconds() if isinstance(v, timedelta) else v
        for k, v in options._asdict().items()
    }
    return store.idempotent_steps(
        agent, request_id, "maintain", args, partial(_round, store, agent, options)
    )


def _round(store: Store, agent: str, options: Options) -> JSONObject:
    gc = store.transact(lambda c: memory_rows.gc(c, clock.now_iso(), options.gc_limit))
    summaries = summarize(store, agent, options) if options.max_tasks else []
    limit = options.prune_limit
    pruned, cutoff = store.transact(
        partial(_older_than, maintain_rows.prune, options.retention, limit)
    )
    forgotten, requests_before = store.transact(
        partial(_older_than, maintain_rows.forget_requests, options.request_retention, limit)
    )
    retained = forget.retain(store, _ages(options), dry_run=False)
    indexed = search.index_backlog(store, options.index_batches)
    wal = maintain_rows.checkpoint(store.conn) if options.checkpoint else None
    return {
        "memory_gc": {"deleted": gc},
        "summarized": summaries,
        "pruned": {"deleted": pruned, "archived_before": cutoff},
        "request_ids_forgotten": {"deleted": forgotten, "created_before": requests_before},
        "retention": retained,
        "search_index": indexed,
        "wal_checkpoint": wal,
    }


def _ages(options: Options) -> dict[str, timedelta]:
    return {kind: timedelta(seconds=seconds) for kind, seconds in options.kept_for}


def retention_dry_run(store: Store, options: Options) -> JSONObject:
    """What a round's retention would forget, changing nothing (the other steps are
    bounded housekeeping that loses nothing, and are not counted)."""
    return {"dry_run": True, "retention": forget.retain(store, _ages(options), dry_run=True)}
