"""How many of the person's messages a session holds: kept by the store as they are written
(a compaction's hook, the status line and a hand-off ask it), equal to counting them."""

from __future__ import annotations

import sqlite3

import pytest

from vybe.context.recorder import record_assistant, record_user
from vybe.llm.base import Reply
from vybe.store import SqliteStore
from vybe.store.receipts import typed_messages
from vybe.store.record import SqliteRecord


def _counted(store, session: str, up_to: int | None = None) -> int:
    return store.conn.execute(
        "SELECT COUNT(*) FROM messages WHERE session_id = ? AND type = 'user' AND context_seq <= ?",
        (session, up_to if up_to is not None else 2**62),
    ).fetchone()[0]


def test_the_kept_count_is_the_count_of_each_sessions_typed_messages(store):
    record = SqliteRecord(store)
    for n in range(30):
        record_user(record, f"s{n % 3}", f"step {n}")
        record_assistant(record, f"s{n % 3}", Reply(f"done {n}"))
    for session in ("s0", "s1", "s2", "never"):
        assert typed_messages(store.conn, session) == _counted(store, session)
    for up_to in (0, 1, 2, 7, 19, 20, 1000):
        assert typed_messages(store.conn, "s1", up_to) == _counted(store, "s1", up_to)


@pytest.mark.sqlite_only("a SQLite store made before 0013, counted by its migration")
def test_a_store_made_before_the_count_counts_what_it_held(tmp_path):
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    record = SqliteRecord(store)
    for n in range(12):
        record_user(record, "s1", f"step {n}")
    store.close()
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER messages_typed; DROP TABLE session_typed;"
        " DELETE FROM schema_migrations WHERE name = '0013_typed_counts.sql';"
        " PRAGMA user_version = 12;"
    )
    conn.close()
    store = SqliteStore(path)
    assert typed_messages(store.conn, "s1") == 12
    record_user(SqliteRecord(store), "s1", "one more")
    assert typed_messages(store.conn, "s1") == 13
    store.close()
