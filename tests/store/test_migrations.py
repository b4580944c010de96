"""Migrations on a store that already holds data: rows, ids and references come through."""

from __future__ import annotations

import os
import sqlite3

import pytest

from vybe.errors import DatabaseCorrupt
from vybe.store import SqliteStore
from vybe.store.db import migration_files, split_statements

pytestmark = pytest.mark.sqlite_only(
    "SQLite's migrations from older files (user_version, PRAGMAs); the server's: tests/postgres"
)


def schema_at(path, version: int) -> sqlite3.Connection:
    """A database with the first ``version`` migrations and no row, open."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for file in migration_files()[:version]:
        with open(file, encoding="utf-8") as script:
            for statement in split_statements(script.read()):
                conn.execute(statement)
        conn.execute("INSERT INTO schema_migrations VALUES (?, 't')", (os.path.basename(file),))
    conn.execute(f"PRAGMA user_version={version}")
    return conn


def store_at(path, version: int) -> None:
    """A database as a vybe that knew only the first ``version`` migrations left it."""
    conn = schema_at(path, version)
    conn.executescript(
        """
        INSERT INTO tasks (id, title, created_at, updated_at) VALUES ('task_1', 'a', 't', 't');
        INSERT INTO events (kind, agent_name, task_id, created_at) VALUES
            ('task_created', 'alice', 'task_1', 't'), ('note', 'alice', 'task_1', 't'),
            ('note', 'bob', 'task_1', 't');
        UPDATE events SET archived_at = 't1' WHERE id = 3;
        DELETE FROM events WHERE id = 3;
        INSERT INTO artifacts (id, task_id, event_id, file_path, created_at)
            VALUES ('art_1', 'task_1', 2, 'out.txt', 't');
        INSERT INTO agent_state (agent_name, last_seen_event_id, last_active_at)
            VALUES ('alice', 3, 't');
        """
    )
    conn.close()


@pytest.fixture
def upgraded(tmp_path):
    store_at(tmp_path / "vybe.db", 6)
    store = SqliteStore(tmp_path / "vybe.db")
    yield store
    store.close()


def test_rebuilding_events_keeps_every_event_and_its_id(upgraded):
    rows = upgraded.conn.execute(
        "SELECT id, kind, agent_name FROM events WHERE archived_at IS NULL ORDER BY id"
    ).fetchall()
    assert [tuple(r) for r in rows] == [(1, "task_created", "alice"), (2, "note", "alice")]


def test_ids_of_pruned_events_are_not_handed_out_again(upgraded):
    new_id = upgraded.conn.execute(
        "INSERT INTO events (kind, agent_name, created_at) VALUES ('note', 'carol', 't')"
        " RETURNING id"
    ).fetchone()[0]
    assert new_id == 4
    sequence = "SELECT seq FROM sqlite_sequence WHERE name = 'events'"
    assert upgraded.conn.execute(sequence).fetchone() is None


def test_rebuilding_events_keeps_the_artifacts_event_ids(upgraded):
    assert upgraded.conn.execute("SELECT event_id FROM artifacts").fetchone()[0] == 2


def test_the_upgraded_store_enforces_foreign_keys_again(upgraded):
    assert upgraded.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):
        upgraded.conn.execute(
            "INSERT INTO artifacts (id, task_id, file_path, created_at)"
            " VALUES ('art_2', 'no_such_task', 'x', 't')"
        )


def test_the_upgraded_events_keep_their_append_only_triggers(upgraded):
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        upgraded.conn.execute("UPDATE events SET message = 'rewritten' WHERE id = 1")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        upgraded.conn.execute("DELETE FROM events WHERE id = 1")


def test_a_migration_that_breaks_a_reference_changes_nothing(tmp_path, monkeypatch):
    store_at(tmp_path / "vybe.db", 6)
    bad = tmp_path / "9999_bad.sql"
    bad.write_text("UPDATE artifacts SET event_id = 99;\n")
    files = [*migration_files(), str(bad)]
    monkeypatch.setattr("vybe.store.db.migration_files", lambda: files)
    with pytest.raises(DatabaseCorrupt, match="foreign keys"):
        SqliteStore(tmp_path / "vybe.db")
    conn = sqlite3.connect(tmp_path / "vybe.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 6
    assert conn.execute("SELECT event_id FROM artifacts").fetchone()[0] == 2
    conn.close()


def test_upgrading_to_teams_puts_every_row_in_the_default_team_and_loses_none(upgraded):
    conn = upgraded.conn
    for table in ("tasks", "events", "artifacts", "agent_state"):
        assert {r[0] for r in conn.execute(f"SELECT team FROM {table}")} == {"default"}, table
    assert conn.execute("SELECT count(*) FROM events WHERE id <= 2").fetchone()[0] == 2
    assert tuple(
        conn.execute("SELECT agent_name, last_seen_event_id FROM agent_state").fetchone()
    ) == (
        "alice",
        3,
    )
    assert [r[0] for r in conn.execute("SELECT name FROM teams")] == ["default"]


# Sessions made before 0025: a hooked one (its first prompt's event names it), a proxied one
# (its id's prefix names the client), vybe chat's (nothing names its agent).
OLD_SESSIONS = """
    INSERT INTO sessions (id, created_at) VALUES ('claude:u-1', 't'), ('codex:u-2', 't'),
        ('opencode:o-1', 't'), ('aider:a-1', 't'), ('ses_chat', 't');
    INSERT INTO events (kind, agent_name, project_id, metadata, created_at) VALUES
        ('user_prompt', 'reviewer', '/home/dev/one', '{"session_id": "u-1", "record_seq": 1}', 't'),
        ('user_prompt', 'other', '/home/dev/two', '{"session_id": "u-1", "record_seq": 2}', 't'),
        ('user_prompt', 'codex', '/home/dev/two', '{"session_id": "u-2", "record_seq": 1}', 't'),
        ('note', 'alice', '/home/dev/three', '{"session_id": "ses_chat"}', 't');
"""
OLD_ORIGINS = {
    "claude:u-1": ("reviewer", "/home/dev/one"),
    "codex:u-2": ("codex", "/home/dev/two"),
    "opencode:o-1": ("opencode", None),
    "aider:a-1": ("aider", None),
    "ses_chat": (None, None),
}


def test_sessions_made_before_take_the_agent_and_project_their_rows_name(tmp_path):
    path = tmp_path / "vybe.db"
    names = [os.path.basename(f) for f in migration_files()]
    conn = schema_at(path, names.index("0025_session_origin.sql"))
    conn.executescript(OLD_SESSIONS)
    conn.close()
    store = SqliteStore(path)
    rows = store.conn.execute("SELECT id, agent_name, project_id FROM sessions").fetchall()
    store.close()
    assert {r[0]: (r[1], r[2]) for r in rows} == OLD_ORIGINS
