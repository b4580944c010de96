"""The store: migrations once, WAL, all-or-nothing transactions, a bounded wait on locks."""

from __future__ import annotations

import sqlite3
import time

import pytest

from vybe.errors import DatabaseLocked, NotFound
from vybe.store import SqliteStore, open_store
from vybe.store.db import migration_files
from vybe.store.rows import to_dict, to_dicts


@pytest.mark.no_store
@pytest.mark.sqlite_only("SQLite's journal mode and user_version")
def test_a_new_store_is_migrated_and_in_wal_mode(store):
    assert store.pending_migrations() == []
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == len(migration_files())


def test_migrating_again_applies_nothing(store, store_location):
    again = open_store(store_location, migrate=False)
    assert again.migrate() == []
    again.close()


def test_an_error_inside_a_transaction_rolls_everything_back(store):
    def half_then_fail(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO projects (id, name, created_at) VALUES ('p', 'p', 't')")
        raise NotFound("nothing here")

    with pytest.raises(NotFound):
        store.transact(half_then_fail)
    assert store.conn.execute("SELECT COUNT(*) FROM projects").fetchone()[0] == 0
    assert not store.conn.in_transaction


@pytest.mark.sqlite_only(
    "SQLite's write lock; the server's row locks: tests/postgres/test_store.py"
)
def test_a_held_write_lock_becomes_db_locked_after_about_the_busy_timeout(tmp_path, store):
    holder = sqlite3.connect(tmp_path / "vybe.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    waiting = SqliteStore(tmp_path / "vybe.db", busy_timeout_ms=300)
    started = time.monotonic()
    with pytest.raises(DatabaseLocked):
        waiting.transact(lambda conn: conn.execute("SELECT 1"))
    elapsed = time.monotonic() - started
    holder.execute("ROLLBACK")
    assert 0.25 < elapsed < 1.0
    assert not waiting.conn.in_transaction
    assert waiting.transact(lambda conn: conn.execute("SELECT 1").fetchone()[0]) == 1


def test_both_stores_implement_the_whole_store_interface_and_neither_is_the_other():
    """PgStore stands beside SqliteStore (it no longer subclasses SQLite's store)."""
    from vybe.store import SqliteStore, Store
    from vybe.store.postgres import PgStore

    assert Store.__abstractmethods__ >= {"transact", "snapshot", "migrate", "search"}
    for implementation in (SqliteStore, PgStore):
        assert issubclass(implementation, Store)
        assert not implementation.__abstractmethods__
    assert not issubclass(PgStore, SqliteStore)


@pytest.mark.parametrize("second", ["b", "a"], ids=["distinct names", "a name twice"])
def test_rows_turned_into_dicts_together_are_what_each_row_gives_alone(store, second):
    """to_dicts reads the column names once for all the rows; a name given twice keeps its
    first column's value, as a row turned alone does."""
    columns = f"1 AS a, 2 AS {second}, '{{\"x\": 1}}' AS metadata, 1 AS f"
    with store.snapshot() as conn:
        rows = conn.execute(f"SELECT {columns} UNION ALL SELECT 3, 4, NULL, 0").fetchall()
    together = to_dicts(rows, ("metadata",), ("f",))
    assert together == [to_dict(row, ("metadata",), ("f",)) for row in rows]
    one, two = together
    assert (one["a"], one["metadata"], one["f"]) == (1, {"x": 1}, True)
    assert (two["a"], two["metadata"], two["f"]) == (3, None, False)
