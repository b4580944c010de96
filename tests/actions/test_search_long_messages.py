"""A long message is found by every character of it, on both stores: an id in the middle of
a tool output, an error far down a pasted log, a path in a long tool call; and a store
indexed before that finds them after its upgrade."""

from __future__ import annotations

import sqlite3
import uuid

import pytest

from tests.actions.test_search import find, say
from vybe.store import SqliteStore, open_store
from vybe.store import record as record_rows

FILLER = "".join(f"line {n:05d} of the build log, nothing to see here\n" for n in range(1200))


def _at(position: int, needle: str, length: int = 60_000) -> str:
    """A tool output of ``length`` characters holding ``needle`` from ``position`` on."""
    text = (FILLER * (length // len(FILLER) + 1))[:length]
    return text[:position] + needle + text[position + len(needle) :]


def test_a_uuid_in_the_middle_of_a_long_tool_output_is_found(store):
    needle = str(uuid.UUID("2f1c9d4e-8a7b-4c3d-9e2f-1a0b3c4d5e6f"))
    say(store, "s1", "tool", _at(7_000, needle))
    found = find(store, needle)
    assert (found["mode"], found["count"], found["complete"]) == ("literal", 1, True)
    assert f"**{needle}**" in found["hits"][0]["snippet"]


def test_an_error_deep_in_a_long_tool_output_is_found(store):
    error = "ModuleNotFoundError: No module named 'billing_core'"
    say(store, "s1", "tool", _at(47_520, error))
    found = find(store, error, mode="literal")
    assert found["count"] == 1
    assert f"**{error}**" in found["hits"][0]["snippet"]
    assert find(store, "billing_core", mode="literal")["count"] == 1


def test_a_path_deep_in_a_long_tool_call_is_found(store):
    arguments = {f"part{n}": "x" * 1500 for n in range(10)}
    arguments["file_path"] = "/srv/app/templates/deep_report.html"
    data = {"tool_calls": [{"id": "c1", "name": "Write", "arguments": arguments}]}
    message = record_rows.MessageRow("s1", 0, "assistant", "writing it", "test", data=data)
    record_rows.append_message(store, message)
    assert find(store, "templates/deep_report.html")["count"] == 1


def test_text_that_is_not_in_the_message_is_still_not_found(store):
    say(store, "s1", "tool", _at(30_000, "marker-one"))
    assert find(store, "marker-two", mode="literal")["count"] == 0
    assert find(store, "marker-one", mode="literal")["count"] == 1


# What the message view was before 0014: a long text's first 6,000 and last 2,000
# characters, a message's calls their first 8,000 (0012's view, verbatim in that part).
_BEFORE_0014 = """
DROP TRIGGER messages_search;
DROP VIEW search_messages;
CREATE VIEW search_messages AS
SELECT id, 2 * id AS hit, substr(content_text, 1, 100000) AS words,
    'tt' || type || ' ts' || hex(session_id) AS tags,
    CASE WHEN length(content_text) > 8000
        THEN substr(content_text, 1, 6000) || ' ' || substr(content_text, -2000)
        ELSE content_text END AS literal,
    content_text AS shown
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
INSERT INTO search_words (rowid, body, tags) SELECT hit, words, tags FROM search_messages;
INSERT INTO search_literal (rowid, body) SELECT hit, literal FROM search_messages;
DELETE FROM schema_migrations WHERE name = '0014_search_whole_messages.sql';
PRAGMA user_version = 0;
"""


@pytest.mark.sqlite_only("a SQLite store indexed before 0014, upgraded in place")
def test_a_store_indexed_before_whole_messages_finds_the_middle_after_its_upgrade(tmp_path):
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    say(store, "s1", "tool", _at(7_000, "needle-in-the-middle"))
    say(store, "s1", "tool", "a short output with needle-in-the-middle too")
    store.close()
    conn = sqlite3.connect(path)
    conn.executescript(_BEFORE_0014)
    conn.close()
    old = open_store(str(path), 5000, migrate=False)
    assert find(old, "needle-in-the-middle", mode="literal")["count"] == 1  # the short one
    old.close()
    upgraded = SqliteStore(path)
    hits = find(upgraded, "needle-in-the-middle", mode="literal")["hits"]
    assert sorted(h["seq"] for h in hits) == [1, 2]
    assert find(upgraded, "a short output", mode="literal")["count"] == 1  # not indexed twice
    check = "INSERT INTO search_literal (search_literal) VALUES ('integrity-check')"
    upgraded.transact(lambda c: c.execute(check))
    upgraded.close()
