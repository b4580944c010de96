"""Search finds what the record and the event log hold, ranked, filtered and paged; the
index is kept by the writes themselves, and bad queries are refused without a trace."""

from __future__ import annotations

import sqlite3

import pytest

from vybe.actions import search as actions
from vybe.errors import InvalidInput
from vybe.store import SqliteStore, Store, search_pages
from vybe.store import events as event_rows
from vybe.store import record as record_rows
from vybe.store import search as search_rows
from vybe.store.search import SearchQuery

# What only SQLite's search has; the server's forms are in tests/postgres/test_search.py.
UNINDEXED = pytest.mark.sqlite_only("a SQLite store made before its index, indexed in batches")
CONTENTLESS = pytest.mark.sqlite_only("the rows of SQLite's contentless FTS5 index")
FTS5_SYNTAX = pytest.mark.sqlite_only("FTS5's query syntax; the server refuses its own")


def say(store: Store, session: str, kind: str, text: str) -> None:
    record_rows.append_message(
        store, record_rows.MessageRow(session, 0, kind, text, "test", tokens=len(text) // 4)
    )


def log(store: Store, kind: str, message: str, agent: str = "a1", project: str | None = None):
    event = event_rows.NewEvent(kind, agent, message, project_id=project)
    store.transact(lambda conn: event_rows.insert(conn, event, "2026-12-01T10:00:00.000000Z"))


def find(store: Store, text: str, mode: str = "auto", **filters) -> dict:
    return actions.search(store, SearchQuery(text, **filters), mode)


def test_a_word_finds_the_message_that_holds_it_with_a_snippet_around_the_hit(store):
    say(store, "s1", "user", "Please migrate the billing tables before Friday, oldest first.")
    say(store, "s1", "assistant", "Starting with the invoices table.")
    found = find(store, "billing")
    assert found["mode"] == "words" and found["count"] == 1
    hit = found["hits"][0]
    assert (hit["source"], hit["session_id"], hit["seq"], hit["type"]) == (
        "message",
        "s1",
        1,
        "user",
    )
    assert "**billing**" in hit["snippet"]


def test_phrases_prefixes_and_operators_are_full_text_syntax(store):
    say(store, "s1", "user", "the deploy window is Friday afternoon")
    say(store, "s1", "user", "Friday is a holiday, deploy on Thursday")
    assert find(store, '"deploy window"')["count"] == 1
    assert find(store, "deplo*")["count"] == 2
    assert find(store, "deploy NOT holiday")["count"] == 1


def test_the_better_match_ranks_first(store):
    say(store, "s1", "assistant", "rounding rounding rounding: half-up everywhere")
    say(store, "s1", "assistant", "a long reply that mentions rounding once among many other words")
    hits = find(store, "rounding")["hits"]
    assert hits[0]["seq"] == 1


def test_paths_ids_and_error_texts_are_found_as_written(store):
    say(store, "s1", "tool", "Traceback ... FileNotFoundError: /srv/billing/app/config.yaml")
    say(store, "s1", "tool", "task_1764_a3f9 finished")
    found = find(store, "billing/app/config.yaml")
    assert (found["mode"], found["count"]) == ("literal", 1)
    assert "**billing/app/config.yaml**" in found["hits"][0]["snippet"]
    assert find(store, "task_1764_a3f9")["count"] == 1
    assert find(store, "FileNotFoundError: /srv", mode="literal")["count"] == 1


def test_events_are_searched_beside_messages_and_filtered_by_agent_and_project(store):
    log(store, "progress", "billing tables moved", agent="worker-1", project="p1")
    log(store, "progress", "billing report sent", agent="worker-2")
    say(store, "s1", "user", "what about billing?")
    assert find(store, "billing")["count"] == 3
    only = find(store, "billing", agent="worker-1")
    assert [(h["source"], h["agent"], h["project_id"]) for h in only["hits"]] == [
        ("event", "worker-1", "p1")
    ]
    assert find(store, "billing", project_id="p1")["count"] == 1
    assert find(store, "billing", type="event")["count"] == 2


def test_filters_by_session_and_type_narrow_words_and_literal_queries(store):
    for session in ("claude:a-1", "codex:b-2"):
        say(store, session, "user", f"fix /etc/app.conf in {session}")
        say(store, session, "assistant", "fixed /etc/app.conf")
    for mode in ("words", "literal"):
        text = "app.conf" if mode == "literal" else "fix*"
        found = find(store, text, mode=mode, session_id="codex:b-2", type="user")
        assert [(h["session_id"], h["type"]) for h in found["hits"]] == [("codex:b-2", "user")]


def test_pages_follow_each_other_without_repeats_and_the_last_says_so(store):
    for n in range(7):
        say(store, "s1", "assistant", f"note {n} about caching")
    seen, cursor = [], None
    while True:
        page = find(store, "caching", limit=3, cursor=cursor)
        seen += [h["seq"] for h in page["hits"]]
        if (cursor := page["next_cursor"]) is None:
            break
    assert sorted(seen) == list(range(1, 8))


def test_a_time_range_keeps_only_what_was_written_inside_it(store):
    say(store, "s1", "user", "an early remark about latency")
    found = find(store, "latency", since="2000-01-01T00:00:00.000000Z")
    assert found["count"] == 1
    assert find(store, "latency", until="2000-01-01T00:00:00.000000Z")["count"] == 0


def _as_before_the_index(path) -> None:
    """Take the search index out of a store, as a store of migration 0007 was."""
    conn = sqlite3.connect(path)
    for statement in (
        "DROP TRIGGER messages_search",
        "DROP TRIGGER events_search",
        "DROP TRIGGER events_search_prune",
        "DROP VIEW search_messages",
        "DROP VIEW search_events",
        "DROP TABLE search_words",
        "DROP TABLE search_literal",
        "DROP TABLE search_backlog",
        "DELETE FROM schema_migrations"
        " WHERE name IN ('0008_search.sql', '0011_search_prefixes.sql',"
        " '0012_search_tool_calls.sql')",
        "PRAGMA user_version = 7",
    ):
        conn.execute(statement)
    conn.commit()
    conn.close()


@UNINDEXED
def test_an_upgraded_store_indexes_what_it_held_in_batches_newest_first(tmp_path):
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    for n in range(7):
        say(store, "s1", "user", f"old remark {n} before the upgrade")
    log(store, "progress", "logged before the upgrade")
    store.close()
    _as_before_the_index(path)
    upgraded = SqliteStore(path)
    say(upgraded, "s1", "user", "a new remark after the upgrade")
    first = find(upgraded, "upgrade")
    assert (first["count"], first["index_complete"]) == (1, False)
    assert upgraded.transact(lambda c: search_rows.backfill(c, batch=1)) == 1  # the event
    assert upgraded.transact(lambda c: search_rows.backfill(c, batch=1)) == 1
    newest = [h["seq"] for h in find(upgraded, "remark")["hits"]]
    assert sorted(newest) == [7, 8]  # the newest old row came first
    done = actions.index_backlog(upgraded, batches=100)
    assert done == {"indexed": 6, "complete": True}
    assert find(upgraded, "upgrade")["count"] == 9
    assert find(upgraded, "before the up", mode="literal")["count"] == 8
    upgraded.close()


def test_a_one_letter_prefix_finds_every_word_that_starts_with_it(store):
    for word in ("tidy", "Tomorrow", "tea", "coffee"):
        say(store, "s1", "user", f"{word} break")
    found = find(store, "t*", mode="words")
    assert sorted(h["seq"] for h in found["hits"]) == [1, 2, 3]
    assert find(store, "to*", mode="words")["count"] == 1


@UNINDEXED
def test_the_prefix_indexes_upgrade_indexes_every_row_again_exactly_once(tmp_path):
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    for n in range(3):
        say(store, "s1", "user", f"tidy remark {n}")
    log(store, "progress", "tidy log line")
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM schema_migrations WHERE name = '0011_search_prefixes.sql'")
    conn.execute("PRAGMA user_version = 10")
    conn.commit()
    conn.close()
    upgraded = SqliteStore(path)
    assert find(upgraded, "t*")["index_complete"] is False
    assert actions.index_backlog(upgraded, batches=100) == {"indexed": 4, "complete": True}
    hits = find(upgraded, "t*", mode="words")["hits"]
    assert sorted((h["source"], h.get("seq") or h.get("event_id")) for h in hits) == [
        ("event", 1),
        ("message", 1),
        ("message", 2),
        ("message", 3),
    ]
    assert find(upgraded, "tidy remark", mode="literal")["count"] == 3
    sql = "SELECT sql FROM sqlite_master WHERE name = 'search_words'"
    assert "prefix = '1 2'" in upgraded.conn.execute(sql).fetchone()[0]
    upgraded.close()


@UNINDEXED
def test_pruning_an_event_the_backlog_has_not_reached_leaves_the_index_sound(tmp_path):
    path = tmp_path / "old.db"
    store = SqliteStore(path)
    log(store, "progress", "old detail one")
    log(store, "progress", "old detail two")
    store.close()
    _as_before_the_index(path)
    upgraded = SqliteStore(path)
    upgraded.transact(lambda c: c.execute("UPDATE events SET archived_at = 'x' WHERE id = 1"))
    upgraded.transact(lambda c: c.execute("DELETE FROM events WHERE id = 1"))
    actions.index_backlog(upgraded, batches=10)
    assert [h["event_id"] for h in find(upgraded, "detail")["hits"]] == [2]
    check = "INSERT INTO search_words (search_words) VALUES ('integrity-check')"
    upgraded.transact(lambda c: c.execute(check))
    upgraded.close()


@CONTENTLESS
def test_a_pruned_event_leaves_the_index(store):
    log(store, "progress", "ephemeral detail")
    log(store, "progress", "newest event")
    store.transact(lambda c: c.execute("UPDATE events SET archived_at = 'x' WHERE id = 1"))
    store.transact(lambda c: c.execute("DELETE FROM events WHERE id = 1"))
    assert find(store, "ephemeral")["count"] == 0
    rows = store.conn.execute(
        "SELECT COUNT(*) FROM search_words WHERE search_words MATCH 'ephemeral'"
    )
    assert rows.fetchone()[0] == 0


@FTS5_SYNTAX
@pytest.mark.parametrize(
    ("text", "mode", "filters"),
    [
        ('"unterminated', "words", {}),
        ("AND OR", "words", {}),
        ("", "auto", {}),
        ("x" * 1001, "auto", {}),
        ("ab", "literal", {}),
        ("a\x00b", "auto", {}),
        ("billing", "fuzzy", {}),
        ("billing", "auto", {"type": "bogus"}),
        ("billing", "auto", {"limit": 0}),
        ("billing", "auto", {"limit": actions.LIMIT_MAX + 1}),
        ("billing", "auto", {"cursor": "not a cursor"}),
        ("billing", "auto", {"cursor": "x" * 5000}),
        ("billing", "auto", {"limit": True}),
        ("billing", "auto", {"since": "yesterday"}),
        ("billing", "auto", {"session_id": " "}),
        ("billing", "auto", {"until": "2026-13-01"}),
        ("x) OR (y", "words", {}),
        ("(" * 600 + "x" + ")" * 400, "words", {}),
    ],
)
def test_a_bad_query_is_invalid_input_and_changes_nothing(store, text, mode, filters):
    say(store, "s1", "user", "billing")
    before = "\n".join(store.conn.iterdump())
    with pytest.raises(InvalidInput):
        find(store, text, mode=mode, **filters)
    assert "\n".join(store.conn.iterdump()) == before


def test_times_are_dates_iso_times_or_durations_ago(store, monkeypatch):
    say(store, "s1", "user", "billing")
    assert find(store, "billing", since="2000-01-01")["count"] == 1
    assert find(store, "billing", since="2000-01-01T09:30:00Z", until="2999-01-01")["count"] == 1
    assert find(store, "billing", since="1h")["count"] == 1
    assert find(store, "billing", until="1h")["count"] == 0


def test_a_filter_cannot_be_escaped_by_the_query_itself(store):
    say(store, "s1", "user", "billing rounding")
    say(store, "s2", "user", "billing ledger")
    found = find(store, '(billing) AND "rounding" OR (ledger)', session_id="s2")
    assert [h["session_id"] for h in found["hits"]] == ["s2"]


def test_auto_reads_paths_ids_and_commands_as_literal_and_sentences_as_words():
    assert all(
        actions.literal_looking(q)
        for q in ["src/vybe/cli.py", "task_17", "a=b", "v0.171", "ENOENT:", "abc123"]
    )
    assert not any(
        actions.literal_looking(q)
        for q in ["billing tables", '"src/vybe"', "deploy*", "(a OR b)", "rounding"]
    )


def test_a_word_written_with_fts5s_caret_is_marked_in_its_snippet(store):
    """``^deploy`` finds what ``deploy`` finds (the caret is no operator of the search's
    syntax), and its snippets mark the word."""
    say(store, "s1", "user", "deploy the billing service")
    say(store, "s1", "user", "please deploy it")
    snippets = sorted(h["snippet"] for h in find(store, "^deploy")["hits"])
    assert snippets == ["**deploy** the billing service", "please **deploy** it"]


def test_a_snippet_is_cut_around_the_hit_on_character_boundaries():
    text = "é" * 500 + "NEEDLE" + "ü" * 500
    cut = actions.snippet(text, actions.needles(SearchQuery("needle", literal=True)))
    assert "**NEEDLE**" in cut and cut.startswith("…") and cut.endswith("…")
    assert len(cut) <= actions.SNIPPET_CHARS + 6


def test_a_query_matching_more_than_the_window_ranks_the_newest_and_says_so(store, monkeypatch):
    monkeypatch.setattr(search_rows, "RANK_WINDOW", 3)
    for n in range(5):
        say(store, "s1", "assistant", f"cache note {n}")
    found = find(store, "cache", limit=2)
    assert found["ranked_newest"] == 3
    assert {h["seq"] for h in found["hits"]} <= {3, 4, 5}
    assert find(store, "note 4")["ranked_newest"] is None


@pytest.mark.parametrize(
    "text",
    ["read-only", "it's", "what's read-only?", "read-only, mode", '"-only"', "(read-only OR x)"],
)
def test_words_with_punctuation_in_them_are_searched_as_written_not_parsed_as_syntax(store, text):
    say(store, "s1", "user", "it's the read-only mode: what's wrong?")
    assert find(store, text, mode="words")["count"] == 1


def test_a_colon_in_a_word_query_names_no_column_of_the_index(store):
    say(store, "s1", "user", "TODO: fix the tags")
    say(store, "s2", "user", "unrelated")
    assert find(store, "TODO: fix", mode="words")["count"] == 1
    # words of the text, not the index's tag column (every message here would match that)
    assert find(store, "tags : ttuser", mode="words")["count"] == 0


@pytest.mark.parametrize("text", ["alpha) OR (alpha", "alpha)) OR ((alpha", ")alpha("])
def test_a_query_cannot_close_its_group_to_escape_the_filters(store, text):
    say(store, "s1", "user", "alpha")
    say(store, "s2", "user", "beta")
    with pytest.raises(InvalidInput):
        find(store, text, mode="words", session_id="s2")


@pytest.mark.parametrize("mode", ["words", "literal"])
def test_a_filter_applies_before_the_window_so_older_matches_of_a_session_are_found(
    store, monkeypatch, mode
):
    monkeypatch.setattr(search_rows, "RANK_WINDOW", 3)
    say(store, "s0", "user", "deploy.sh failed in the old session")
    for n in range(6):
        say(store, "s1", "user", f"deploy.sh failed again {n}")
    text = "deploy.sh" if mode == "literal" else "failed"
    found = find(store, text, mode=mode, session_id="s0", limit=1)  # a window of 3
    assert [(h["session_id"], h["seq"]) for h in found["hits"]] == [("s0", 1)]
    assert find(store, text, mode=mode, until="2000-01-01T00:00:00.000000Z")["count"] == 0


def test_the_window_is_the_newest_matches_by_time_messages_and_events_alike(store, monkeypatch):
    """Messages and events number their rows apart: the window goes by when each was
    written, not by row id, so events newer than every message are ranked too."""
    monkeypatch.setattr(search_rows, "RANK_WINDOW", 3)
    for n in range(6):
        say(store, "s1", "assistant", f"cache note {n}")
    event = event_rows.NewEvent("progress", "a1", "cache event")
    for _ in range(2):
        store.transact(lambda conn: event_rows.insert(conn, event, "2099-01-01T00:00:00.000000Z"))
    found = find(store, "cache", limit=2)  # a window of 3: two events and one message
    assert [h["source"] for h in found["hits"]] == ["event", "event"]
    assert found["ranked_newest"] == 3


def test_equal_scores_across_messages_and_events_come_newest_first(store):
    event = event_rows.NewEvent("progress", "a1", "cache")
    store.transact(lambda conn: event_rows.insert(conn, event, "2000-01-01T00:00:00.000000Z"))
    say(store, "s1", "assistant", "progress cache")
    store.transact(lambda conn: event_rows.insert(conn, event, "2099-01-01T00:00:00.000000Z"))
    hits = find(store, "cache")["hits"]
    assert [h["created_at"] for h in hits] == sorted((h["created_at"] for h in hits), reverse=True)
    assert [h["source"] for h in hits] == ["event", "message", "event"]


def test_a_search_past_its_time_bound_answers_what_it_found_and_says_from_when(store, monkeypatch):
    for n in range(10):
        say(store, "s1", "assistant", f"cache note {n}")
    assert find(store, "cache")["complete"] is True
    monkeypatch.setattr(search_pages, "SPAN", 2)  # ids read before the clock is looked at
    monkeypatch.setattr(search_rows, "SECONDS", 0)
    found = find(store, "cache")
    assert found["complete"] is False
    assert [h["seq"] for h in found["hits"]] == [10, 9]
    assert found["searched_since"] == found["hits"][-1]["created_at"]


def test_a_session_filter_searches_only_that_sessions_rows(store, monkeypatch):
    """The session's rows are where its matches can be: the scan starts and stops there."""
    say(store, "s0", "user", "deploy.sh failed in the old session")
    for n in range(50):
        say(store, "s1", "user", f"deploy.sh failed again {n}")
    monkeypatch.setattr(search_pages, "SPAN", 2)
    monkeypatch.setattr(search_rows, "SECONDS", 0)  # only the first span is read
    found = find(store, "deploy.sh", session_id="s0")
    assert [(h["session_id"], h["seq"]) for h in found["hits"]] == [("s0", 1)]
    assert found["complete"] is True


def test_literal_hits_come_newest_first_whatever_their_score(store):
    say(store, "s1", "tool", "ENOENT: /srv/a.py ENOENT: /srv/a.py ENOENT: /srv/a.py")
    say(store, "s1", "tool", "a long output that ends in ENOENT: /srv/a.py once, much later")
    found = find(store, "ENOENT: /srv/a.py", mode="literal")
    assert [h["seq"] for h in found["hits"]] == [2, 1]
    assert found["ranked_newest"] is None
