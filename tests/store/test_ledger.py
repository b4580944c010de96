"""The idempotency ledger stays bounded for a busy agent, and a clock jump alone never makes
it forget a recent request id (a retry would then write twice)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from vybe import clock
from vybe.actions import maintain, tasks
from vybe.errors import DatabaseLocked
from vybe.store import SqliteStore, Store
from vybe.store import maintain as maintain_rows


@pytest.fixture
def store(tmp_path):
    opened = SqliteStore(tmp_path / "v.db")
    yield opened
    opened.close()
    clock.reset()


def _ledger(store: Store) -> int:
    return store.conn.execute("SELECT COUNT(*) FROM idempotency").fetchone()[0]


def _events(store: Store) -> int:
    return store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]


def test_a_clock_jumped_a_month_ahead_forgets_no_recent_request_id(store):
    tasks.create(store, "a", "req-1", title="t")
    clock.shift(timedelta(days=31))
    forgotten = maintain.maintain(store, "a")["request_ids_forgotten"]["deleted"]
    assert forgotten == 0
    tasks.create(store, "a", "req-1", title="t")  # the retry replays
    assert _events(store) == 1


def test_old_request_ids_beyond_the_newest_kept_are_forgotten_by_maintain(store, monkeypatch):
    monkeypatch.setattr(maintain_rows, "LEDGER_KEEP", 3)
    for n in range(8):
        tasks.create(store, "a", f"r{n}", title="t")
    clock.shift(timedelta(days=31))
    assert maintain.maintain(store, "a")["request_ids_forgotten"]["deleted"] == 5
    assert _ledger(store) == 3


def test_a_busy_agent_s_ledger_stays_within_its_cap_without_maintain(store, monkeypatch):
    monkeypatch.setattr(maintain_rows, "LEDGER_KEEP", 5)
    monkeypatch.setattr(maintain_rows, "LEDGER_CAP", 40)
    monkeypatch.setattr(maintain_rows, "FORGET_EVERY", 8)
    for n in range(300):
        tasks.create(store, "a", f"r{n}", title="t")
        assert _ledger(store) <= 40 + 8
    assert _ledger(store) >= 40 - 8


def test_a_retry_is_answered_while_another_process_holds_the_write_lock(tmp_path):
    """A replay reads the ledger; it does not queue for the write lock."""
    store = SqliteStore(tmp_path / "v.db", busy_timeout_ms=100)
    first = tasks.create(store, "a", "r1", title="t")
    holder = sqlite3.connect(tmp_path / "v.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        assert tasks.create(store, "a", "r1", title="t") == first
        with pytest.raises(DatabaseLocked):
            tasks.create(store, "a", "r2", title="t")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.close()
