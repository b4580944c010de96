"""Events are append-only: the triggers refuse any change but archiving, even from raw SQL."""

from __future__ import annotations

import sqlite3

import pytest

from vybe.store import SqliteStore
from vybe.store import events as event_rows


@pytest.fixture
def conn(tmp_path):
    store = SqliteStore(tmp_path / "vybe.db")
    store.transact(
        lambda c: event_rows.insert(c, event_rows.NewEvent("note", "alice", "hello"), "t0")
    )
    store.close()
    raw = sqlite3.connect(tmp_path / "vybe.db", isolation_level=None)
    yield raw
    raw.close()


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE events SET message = 'rewritten'",
        "UPDATE events SET kind = 'other'",
        "UPDATE events SET agent_name = 'mallory'",
        "UPDATE events SET created_at = 't9'",
        "UPDATE events SET metadata = '{}'",
    ],
)
def test_updating_an_event_fails(conn, sql):
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute(sql)
    assert conn.execute("SELECT message, kind FROM events").fetchone() == ("hello", "note")


def test_deleting_a_live_event_fails(conn):
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM events")
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1


def test_archiving_an_event_is_allowed_once(conn):
    conn.execute("UPDATE events SET archived_at = 't1'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE events SET archived_at = 't2'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE events SET archived_at = NULL")


def _append(conn, message):
    conn.execute(
        "INSERT INTO events (kind, agent_name, message, created_at) VALUES ('note', 'bob', ?, 't')",
        (message,),
    )


def test_an_archived_event_can_be_pruned(conn):
    _append(conn, "newer")
    conn.execute("UPDATE events SET archived_at = 't1' WHERE message = 'hello'")
    conn.execute("DELETE FROM events WHERE message = 'hello'")
    assert conn.execute("SELECT message FROM events").fetchall() == [("newer",)]


def test_the_newest_event_cannot_be_pruned_even_archived(conn):
    conn.execute("UPDATE events SET archived_at = 't1'")
    with pytest.raises(sqlite3.IntegrityError, match="never the newest"):
        conn.execute("DELETE FROM events")
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1


def test_event_ids_are_never_handed_out_again_after_pruning(conn):
    for n in range(3):
        _append(conn, f"m{n}")
    newest = conn.execute("SELECT MAX(id) FROM events").fetchone()[0]
    conn.execute("UPDATE events SET archived_at = 't1' WHERE id < ?", (newest,))
    conn.execute("DELETE FROM events WHERE archived_at IS NOT NULL")
    _append(conn, "after")
    assert conn.execute("SELECT id FROM events WHERE message = 'after'").fetchone()[0] == newest + 1
