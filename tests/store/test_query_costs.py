"""Hot queries read along their indexes: work bounded by the rows shown, not the table."""

from __future__ import annotations

import sqlite3

from vybe.store import SqliteStore, Store, tasks
from vybe.store import brief as brief_rows

AT = "2026-01-01T00:00:00.000000Z"


def _steps(conn: sqlite3.Connection, run) -> int:
    """SQLite virtual-machine steps (in hundreds) that ``run`` takes: a count, not a time."""
    counted = [0]

    def tick() -> int:
        counted[0] += 1
        return 0

    conn.set_progress_handler(tick, 100)
    try:
        run()
    finally:
        conn.set_progress_handler(None, 100)
    return counted[0]


def _store_with_events(tmp_path, count: int) -> Store:
    store = SqliteStore(tmp_path / "vybe.db")
    store.conn.execute("BEGIN")
    store.conn.executemany(
        "INSERT INTO events (kind, agent_name, project_id, message, created_at)"
        " VALUES ('progress', 'a', ?, 'm', ?)",
        [("/p" if n % 10 else None, AT) for n in range(count)],
    )
    store.conn.execute("COMMIT")
    return store


def test_recent_project_events_cost_the_same_on_a_small_and_a_large_log(tmp_path):
    small = _store_with_events(tmp_path / "s", 200)
    large = _store_with_events(tmp_path / "l", 5_000)
    costs = [
        _steps(s.conn, lambda s=s: brief_rows.scope_events(s.conn, "/p", 20))
        for s in (small, large)
    ]
    assert costs[1] <= costs[0] + 5, costs


def test_recent_project_events_merge_the_project_and_the_projectless_newest(tmp_path):
    store = _store_with_events(tmp_path, 50)
    events = brief_rows.scope_events(store.conn, "/p", 12)
    ids = [e["id"] for e in events]
    assert ids == sorted(ids) and ids == list(range(39, 51))


def _store_with_tasks(tmp_path, count: int) -> Store:
    store = SqliteStore(tmp_path / "vybe.db")
    store.conn.execute("BEGIN")
    store.conn.executemany(
        "INSERT INTO tasks (id, title, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        [(f"task_{n}", "t", n % 10, AT, AT) for n in range(count)],
    )
    store.conn.execute("COMMIT")
    return store


def test_listing_tasks_by_priority_costs_the_same_on_a_small_and_a_large_table(tmp_path):
    small = _store_with_tasks(tmp_path / "s", 100)
    large = _store_with_tasks(tmp_path / "l", 10_000)
    query = tasks.TaskQuery(limit=20)
    costs = [_steps(s.conn, lambda s=s: tasks.select(s.conn, query)) for s in (small, large)]
    assert costs[1] <= costs[0] + 5, costs
