"""`vybe forget` names every table of the schema: each holds words (vybe.store.forget.WORDS,
with the columns that hold them) or none (NO_WORDS, with why). A table or a column of words
a migration adds fails here until forget knows what to do with it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.store.test_schemas_agree import SQLITE_ONLY_TABLES
from vybe.store import forget as rows
from vybe.store import open_store

# The text columns of the tables of words that hold no words: ids, names of things, kinds,
# times. A new text column must be one of these or be named in WORDS.
NAMES = {
    "messages": {"session_id", "type", "source", "created_at"},
    "events": {
        "kind",
        "agent_name",
        "task_id",
        "project_id",
        "assignee_agent",
        "created_at",
        "archived_at",
    },
    "memory": {
        "id",
        "value_type",
        "scope",
        "scope_id",
        "kind",
        "expires_at",
        "last_accessed_at",
        "source_task_id",
        "supersedes",
        "superseded_by",
        "superseded_at",
        "created_at",
        "updated_at",
    },
    "tasks": {
        "id",
        "status",
        "project_id",
        "claimed_by",
        "lease_expires_at",
        "created_at",
        "updated_at",
    },
    "projects": {"id", "created_at"},
    "artifacts": {"id", "task_id", "content_type", "project_id", "created_at", "content_sha256"},
    "checkpoints": {"session_id", "mode", "created_at"},
    "checkpoint_attempts": {
        "session_id",
        "run_id",
        "mode",
        "reason",
        "outcome",
        "usage",
        "created_at",
    },
    "compaction_receipts": {
        "session_id",
        "agent_name",
        "compactor",
        "trigger",
        "created_at",
        "completed_at",
        "source_key",
    },
    "handoff_context": {"task_id", "from_agent", "to_agent", "session_id", "created_at"},
    "idempotency": {"agent_name", "request_id", "command", "args_sha256", "created_at"},
}


def _tables(tmp_path: Path) -> dict[str, dict[str, str]]:
    open_store(str(tmp_path / "v.db")).close()
    conn = sqlite3.connect(tmp_path / "v.db")
    try:
        names = [
            r[0]
            for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if r[0] not in SQLITE_ONLY_TABLES
        ]
        # Every row's team (migration 0020) names a team, never says anything.
        return {
            t: {
                c[1]: c[2].upper()
                for c in conn.execute(f"PRAGMA table_info({t})")
                if c[1] != "team"
            }
            for t in names
        }
    finally:
        conn.close()


def test_every_table_either_holds_words_forget_reaches_or_none(tmp_path):
    tables = _tables(tmp_path)
    assert set(tables) == set(rows.WORDS) | set(rows.NO_WORDS)
    assert not set(rows.WORDS) & set(rows.NO_WORDS)


def test_every_text_column_of_a_table_of_words_is_forgotten_or_a_name(tmp_path):
    tables = _tables(tmp_path)
    for table, columns in rows.WORDS.items():
        text = {c for c, kind in tables[table].items() if "TEXT" in kind}
        assert set(columns) <= text, table
        assert text - set(columns) == NAMES[table], table


def test_forget_touches_every_table_of_the_record_and_what_is_made_from_it():
    assert set(rows.RECORD) | set(rows.DERIVED) == set(rows.WORDS) - {
        "memory",
        "tasks",
        "projects",
        "artifacts",  # the state, reached by --text only
    }
