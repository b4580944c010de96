"""What only the server's search must show (tests/actions/test_search.py runs here too,
under --store=postgres): hostile queries answered or refused with INVALID_INPUT, never
INTERNAL; a search past its time bound answers what it found, as on SQLite, and only a
first span the server cannot finish is QUERY_TIMEOUT; a store copied from SQLite searchable
at once."""

from __future__ import annotations

import os

import pytest

from tests.actions.test_search import find, log, say
from vybe.errors import InvalidInput, VybeError
from vybe.store import SqliteStore, copy, search_pages
from vybe.store import search as search_rows


def _dump(store) -> list:
    raw = store.conn.raw
    return [raw.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("messages", "events")]


@pytest.mark.parametrize(
    ("text", "mode", "filters"),
    [
        ('"unterminated', "words", {}),
        ("AND OR", "words", {}),
        ("NOT billing", "words", {}),
        ("billing NOT", "words", {}),
        ("", "auto", {}),
        ("x" * 1001, "auto", {}),
        ("ab", "literal", {}),
        ("a\x00b", "auto", {}),
        ("billing", "auto", {"limit": 0}),
        ("billing", "auto", {"since": "yesterday"}),
        ("x) OR (y", "words", {}),
        ("(" * 600 + "x" + ")" * 400, "words", {}),
        ("(" * 40 + "x" + ")" * 40, "words", {}),
        ("()", "words", {}),
        ("*", "words", {}),
    ],
)
def test_a_bad_query_is_invalid_input_and_changes_nothing(store, text, mode, filters):
    say(store, "s1", "user", "billing")
    before = _dump(store)
    with pytest.raises(InvalidInput):
        find(store, text, mode=mode, **filters)
    assert _dump(store) == before


@pytest.mark.parametrize(
    "text",
    [
        "'; DROP TABLE messages; --",
        "billing:* & !x | (y <-> z)",
        "\\' \\\\ '' %s %(t0)s {words} $1",
        "é" * 900,  # one word past the longest a tsvector holds
        "ü*" * 400,
        '"' + "a " * 490 + '"*',
        " OR ".join(["billing"] * 200),
        "billing " + " NOT x" * 150,
        '"-" billing',
        "-* billing",
        "日本語 emoji 🚀 billing",
        "\u200b\ufeff billing",
    ],
)
@pytest.mark.parametrize("mode", ["words", "literal", "auto"])
def test_a_hostile_query_is_answered_or_refused_never_an_internal_error(store, text, mode):
    say(store, "s1", "user", "billing '; DROP TABLE messages; -- $1 %s 日本語 🚀")
    try:
        found = find(store, text, mode=mode)
    except InvalidInput as refused:
        assert refused.context["field"] == "query"
    else:
        assert found["count"] >= 0
    assert find(store, "billing")["count"] == 1  # the table is still there


def test_a_pruned_event_leaves_the_index(store):
    log(store, "progress", "ephemeral detail")
    log(store, "progress", "newest event")
    store.transact(lambda c: c.execute("UPDATE events SET archived_at = 'x' WHERE id = 1"))
    store.transact(lambda c: c.execute("DELETE FROM events WHERE id = 1"))
    assert find(store, "ephemeral")["count"] == 0
    assert find(store, "ephemeral detail", mode="literal")["count"] == 0


def test_words_split_where_sqlite_splits_them_not_at_paths_urls_or_emails(store):
    say(store, "s1", "tool", "wrote /srv/billing/app/config.yaml and mailed ops@example.com")
    for word in ("billing", "config", "yaml", "example", "ops"):
        assert find(store, word, mode="words")["count"] == 1, word
    assert find(store, '"app config"', mode="words")["count"] == 1
    assert find(store, "tt:tool", mode="words")["count"] == 0  # a filter's tag is no word


@pytest.mark.parametrize("mode", ["words", "literal"])
def test_a_search_past_its_time_bound_answers_a_partial_page_not_an_error(store, monkeypatch, mode):
    for n in range(200):
        say(store, "s1", "tool", f"line {n} of a long log about billing " * 40)
    monkeypatch.setattr(search_pages, "SPAN", 16)
    monkeypatch.setattr(search_rows, "SECONDS", 0)  # no span starts after the first
    found = find(store, "billing", mode=mode, limit=50)
    assert found["complete"] is False
    assert [h["seq"] for h in found["hits"]] == list(range(200, 184, -1))
    assert found["searched_since"] == found["hits"][-1]["created_at"]
    assert found["next_cursor"]


def test_only_a_first_span_the_server_cannot_finish_is_query_timeout(store, monkeypatch):
    for n in range(200):
        say(store, "s1", "tool", f"line {n} of a long log about billing " * 40)
    monkeypatch.setattr(search_rows, "SECONDS", 0)  # the page's bound has passed: a first span
    monkeypatch.setattr(search_pages, "FIRST_SECONDS", 0.001)
    with pytest.raises(VybeError) as stopped:
        find(store, "billing", mode="literal")
    assert stopped.value.code == "QUERY_TIMEOUT"
    monkeypatch.undo()
    assert find(store, "billing", limit=500)["count"] == 200  # the next search is served


def test_a_store_copied_from_sqlite_is_searchable_on_the_server(tmp_path, store):
    source = SqliteStore(tmp_path / "vybe.db")
    say(source, "s1", "user", "migrate the billing tables; keep /srv/app/ledger.py")
    log(source, "progress", "billing moved", agent="worker-1")
    copy.to_server(source, store)
    source.close()
    assert find(store, "billing")["count"] == 2
    assert find(store, "/srv/app/ledger.py")["hits"][0]["session_id"] == "s1"
    assert find(store, "billing", agent="worker-1")["hits"][0]["kind"] == "progress"
    say(store, "s1", "user", "billing once more")  # the copied sequences go on
    assert find(store, "billing", type="user")["count"] == 2


def test_a_server_store_made_before_tool_calls_were_indexed_finds_them_after_upgrade(
    pg_server, monkeypatch
):
    """0012 on the server indexes again, under its advisory lock, the rows already there."""
    from tests.actions.test_search_tool_calls import bash
    from tests.actions.test_search_tool_calls import find as find_calls
    from tests.postgres.database import made_before, old_message
    from vybe.actions import health
    from vybe.store import db, open_store

    old = made_before(pg_server, monkeypatch, "vybe_before_0012", "0012_search_tool_calls.sql")
    url = pg_server.url("vybe_before_0012")
    files = db.migration_files()
    at = [os.path.basename(p) for p in files].index("0012_search_tool_calls.sql")
    old_message(old, "s1", "assistant", "listing", bash("ls -la ~/.claude/"))  # its text alone
    old.close()
    try:
        applied = health.migrate(url, 5000)["applied"]
        assert applied == [os.path.basename(p) for p in files[at:]]
        store = open_store(url, 5000)
        hits = find_calls(store, "ls -la ~/.claude/", mode="literal")["hits"]
        assert [h["snippet"] for h in hits] == ["listing\nBash: **ls -la ~/.claude/**"]
        assert find_calls(store, "listing", mode="words")["count"] == 1
        store.close()
    finally:
        pg_server.admin("DROP DATABASE IF EXISTS vybe_before_0012 WITH (FORCE)")


def test_a_server_store_indexed_before_whole_messages_finds_the_middle_after_upgrade(
    pg_server, monkeypatch
):
    """0014 on the server makes the literal index again over whole messages."""
    from tests.actions.test_search_long_messages import _at
    from tests.postgres.database import made_before, old_message
    from vybe.actions import health
    from vybe.store import open_store

    old = made_before(pg_server, monkeypatch, "vybe_before_0014", "0014_search_whole_messages.sql")
    url = pg_server.url("vybe_before_0014")
    old_message(old, "s1", "tool", _at(7_000, "needle-in-the-middle"))
    assert find(old, "needle-in-the-middle", mode="literal")["count"] == 0
    old.close()
    try:
        assert health.migrate(url, 5000)["applied"][0] == "0014_search_whole_messages.sql"
        store = open_store(url, 5000)
        assert find(store, "needle-in-the-middle", mode="literal")["count"] == 1
        store.close()
    finally:
        pg_server.admin("DROP DATABASE IF EXISTS vybe_before_0014 WITH (FORCE)")
