"""Search finds what a tool call says (its name and the text of its arguments) as the agent
wrote it, for Claude Code's and Codex's calls alike; the index keeps step with each write,
and no content_json, however deep, big or odd, can break a write."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from vybe.actions import search as actions
from vybe.store import SqliteStore, Store, open_store
from vybe.store import record as record_rows
from vybe.store.search import SearchQuery

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CLAUDE = FIXTURES / "claude-codemie-code-196820da.jsonl"
CODEX = FIXTURES / "codex-codemie-code-019b7f94-v0.77.jsonl"


def call(store: Store, data: object, text: str = "", session: str = "s1") -> None:
    """An assistant message carrying ``data`` as its content_json."""
    row = record_rows.MessageRow(session, 0, "assistant", text, "test", data=data)
    record_rows.append_message(store, row)


def find(store: Store, text: str, mode: str = "auto") -> dict:
    return actions.search(store, SearchQuery(text), mode)


def bash(command: str) -> dict:
    return {"tool_calls": [{"id": "t1", "name": "Bash", "arguments": {"command": command}}]}


def test_a_command_claude_code_ran_is_found_as_written_after_its_transcript_is_imported(vybe):
    vybe.ok("session", "import", "--claude", str(CLAUDE))
    found = vybe.ok("search", "ls -la ~/.claude/", "--mode", "literal")
    assert sorted(hit["seq"] for hit in found["hits"]) == [14, 26]
    assert all("Bash: " in hit["snippet"] for hit in found["hits"])
    assert "Bash: **ls -la ~/.claude/** 2>/dev/null | head -20" in found["hits"][1]["snippet"]


def test_a_codex_shell_call_given_as_a_list_reads_as_the_command_line(vybe):
    vybe.ok("session", "import", "--codex", str(CODEX))
    found = vybe.ok("search", "bash -lc ls", "--mode", "literal")
    assert found["count"] == 1
    assert found["hits"][0]["snippet"].startswith("shell: **bash -lc ls** /Users/")
    words = vybe.ok("search", "shell codemie", "--mode", "words", "--type", "assistant")
    assert words["count"] >= 1


def test_a_tool_calls_name_and_every_string_argument_are_words_numbers_are_not(store):
    grep = {"pattern": "retry.*backoff", "path": "/srv/app", "-C": 3, "-i": True}
    call(store, {"tool_calls": [{"id": "g", "name": "Grep", "arguments": grep}]}, "Looking.")
    hit = find(store, "Grep backoff", mode="words")["hits"][0]
    assert hit["snippet"] == "Looking.\n**Grep**: retry.***backoff** /srv/app"
    assert find(store, "retry.*backoff /srv/app", mode="literal")["count"] == 1
    assert find(store, "True", mode="words")["count"] == 0


def test_a_message_without_calls_is_indexed_as_its_text_alone(store):
    call(store, {"claude_import": {"offset": 7}}, "plain reply about tool_calls")
    assert find(store, "tool_calls", mode="literal")["hits"][0]["snippet"] == (
        "plain reply about **tool_calls**"
    )


def test_a_call_is_searchable_inside_the_transaction_that_wrote_it_and_gone_if_it_rolls_back(
    store,
):
    seen = []

    def write_then_look(conn) -> None:
        conn.execute("INSERT INTO sessions (id, created_at) VALUES ('s1', 't')")
        conn.execute(
            "INSERT INTO messages (session_id, context_seq, type, content_json, created_at)"
            " VALUES ('s1', 1, 'assistant', ?, 't')",
            (json.dumps(bash("make deploy-canary")),),
        )
        seen.append(store.search(conn, SearchQuery("deploy-canary", literal=True)).rows)
        raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        store.transact(write_then_look)
    assert len(seen[0]) == 1
    assert find(store, "deploy-canary", mode="literal")["count"] == 0


HOSTILE = [
    '{not json at all, but it mentions "tool_calls"',
    json.dumps({"tool_calls": "a string"}),
    json.dumps({"tool_calls": {"name": "an object, not a list"}}),
    json.dumps({"tool_calls": [None, 7, "x", [1, 2], {"name": {"deep": 1}, "arguments": 5}]}),
    json.dumps({"tool_calls": [{"name": "Deep", "arguments": {"a": "[" * 5000}}]}),
    '{"tool_calls": [{"name": "Deep", "arguments": ' + "[" * 5000 + "]" * 5000 + "}]}",
    json.dumps({"tool_calls": [{"name": "Huge", "arguments": {"s": "z" * 3_000_000}}]}),
    json.dumps({"tool_calls": [{"name": "Wide", "arguments": {"v": ["w"] * 100_000}}]}),
    json.dumps({"tool_calls": [{"name": f"n{i}", "arguments": {}} for i in range(10_000)]}),
]


@pytest.mark.parametrize("content_json", HOSTILE, ids=range(len(HOSTILE)))
def test_no_content_json_can_break_a_write_or_make_its_index_unbounded(store, content_json):
    def write(conn) -> None:
        conn.execute("INSERT INTO sessions (id, created_at) VALUES ('s1', 't')")
        conn.execute(
            "INSERT INTO messages (session_id, context_seq, type, content_text, content_json,"
            " created_at) VALUES ('s1', 1, 'assistant', 'hostile reply', ?, 't')",
            (content_json,),
        )

    store.transact(write)
    hit = find(store, "hostile", mode="words")["hits"][0]
    assert hit["snippet"].startswith("**hostile** reply")
    assert len(hit["snippet"]) < 400
    call(store, bash("echo still-fine"))
    assert find(store, "still-fine", mode="literal")["count"] == 1


def test_a_long_argument_is_indexed_up_to_its_bound(store):
    call(store, bash("head-" + "x" * 3000 + "-tail"))
    assert find(store, "head-xxx", mode="literal")["count"] == 1
    assert find(store, "x-tail", mode="literal")["count"] == 0


# What the message view and its trigger were before 0012: a message's text alone.
_BEFORE_0012 = """
DROP TRIGGER messages_search;
DROP VIEW search_messages;
CREATE VIEW search_messages AS
SELECT id, 2 * id AS hit, substr(content_text, 1, 100000) AS words,
    'tt' || type || ' ts' || hex(session_id) AS tags, content_text AS literal
FROM messages;
CREATE TRIGGER messages_search AFTER INSERT ON messages
BEGIN
    INSERT INTO search_words (rowid, body, tags)
    SELECT hit, words, tags FROM search_messages WHERE id = NEW.id;
    INSERT INTO search_literal (rowid, body)
    SELECT hit, literal FROM search_messages WHERE id = NEW.id;
END;
INSERT INTO search_words (search_words) VALUES ('delete-all');
INSERT INTO search_literal (search_literal) VALUES ('delete-all');
DELETE FROM schema_migrations WHERE name = '0012_search_tool_calls.sql';
PRAGMA user_version = 0;
"""


@pytest.mark.sqlite_only("a SQLite store made before 0012, indexed again by `vybe upgrade`")
def test_a_store_made_before_tool_calls_were_indexed_finds_them_after_vybe_upgrade(tmp_path):
    from vybe.actions import health

    path = tmp_path / "old.db"
    store = SqliteStore(path)
    call(store, bash("ls -la ~/.claude/"), "listing")
    store.close()
    conn = sqlite3.connect(path)
    conn.executescript(_BEFORE_0012)
    conn.executescript(
        "INSERT INTO search_words (rowid, body, tags) SELECT hit, words, tags"
        " FROM search_messages; INSERT INTO search_literal (rowid, body)"
        " SELECT hit, literal FROM search_messages;"
    )
    conn.close()
    old = open_store(str(path), 5000, migrate=False)
    assert find(old, "ls -la ~/.claude/", mode="literal")["count"] == 0
    old.close()
    upgraded = health.migrate(str(path), 5000)
    assert upgraded["applied"] == ["0012_search_tool_calls.sql"]
    assert upgraded["search_index"] == {"indexed": 1, "complete": True}
    store = SqliteStore(path)
    hits = find(store, "ls -la ~/.claude/", mode="literal")["hits"]
    assert [h["snippet"] for h in hits] == ["listing\nBash: **ls -la ~/.claude/**"]
    assert find(store, "listing", mode="words")["count"] == 1  # indexed once, not twice
    store.close()
