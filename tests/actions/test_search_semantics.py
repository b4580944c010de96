"""What a query means when a person types it as they would into any search box, on both
stores: punctuation between words, ``-word`` to leave a word out, a cursor of another
search, and snippets that show where the query's words are thickest."""

from __future__ import annotations

import pytest

from tests.actions.test_search import find, log, say
from vybe.errors import InvalidInput


@pytest.fixture
def notes(store):
    say(store, "s1", "user", "session tracking is broken again")
    say(store, "s1", "user", "the session itself is fine")
    say(store, "s1", "user", "tracking numbers for the parcels")
    return store


def seqs(found: dict) -> list[int]:
    return sorted(h["seq"] for h in found["hits"])


@pytest.mark.parametrize("text", ["session - tracking", "session ? tracking", "session — tracking"])
def test_punctuation_alone_between_words_is_no_word_and_is_left_out(notes, text):
    assert seqs(find(notes, text, mode="words")) == [1]


def test_a_word_and_a_question_mark_find_the_word(notes):
    assert seqs(find(notes, "session ?", mode="words")) == [1, 2]


@pytest.mark.parametrize("text", ["?", "- -", "...", "( ? )"])
def test_a_query_of_punctuation_alone_is_invalid_input(notes, text):
    with pytest.raises(InvalidInput, match="no word"):
        find(notes, text, mode="words")


@pytest.mark.parametrize(
    "text",
    ["session -tracking", "-tracking session", 'session -"tracking is"', "session NOT tracking"],
)
def test_a_word_written_with_a_minus_is_left_out(notes, text):
    assert seqs(find(notes, text, mode="words")) == [2]


def test_a_minus_leaves_its_word_out_of_every_word_beside_it(notes):
    assert seqs(find(notes, "session fine -tracking", mode="words")) == [2]
    assert seqs(find(notes, "parcels OR session -fine", mode="words")) == [1, 3]


@pytest.mark.parametrize("text", ["-session", "-session -tracking", "(-session)"])
def test_a_query_that_only_leaves_words_out_is_invalid_input(notes, text):
    with pytest.raises(InvalidInput, match="left out"):
        find(notes, text, mode="words")


def test_a_quoted_minus_is_a_word_not_an_exclusion(store):
    say(store, "s1", "user", "the read-only mode")
    assert find(store, '"-only"', mode="words")["count"] == 1
    assert find(store, "read-only", mode="words")["count"] == 1


@pytest.mark.parametrize(
    ("other", "filters"),
    [
        ("billing", {"session_id": "s1", "mode": "literal"}),  # messages only
        ("billing", {"type": "event"}),  # events only
        ("other words", {}),
    ],
)
def test_a_cursor_of_another_search_says_so(store, other, filters):
    for n in range(3):
        say(store, "s1", "user", f"billing note {n} and other words")
        log(store, "progress", f"billing event {n}")
    first = find(store, "billing", limit=1)
    assert first["next_cursor"]
    mode = filters.pop("mode", "auto")
    with pytest.raises(InvalidInput, match="another query or other filters"):
        find(store, other, mode=mode, cursor=first["next_cursor"], **filters)


def test_a_snippet_marks_the_window_where_the_query_s_words_are_together(store):
    text = (
        "deploy "
        + "filler words of a long reply " * 40
        + "the deploy window opens at noon"
        + " more filler" * 40
    )
    say(store, "s1", "assistant", text)
    hit = find(store, "deploy window", mode="words")["hits"][0]
    assert "**deploy** **window**" in hit["snippet"]
    assert not hit["snippet"].startswith("**deploy**")


def test_a_phrase_deep_in_a_long_message_is_marked_where_it_is(store):
    text = "opening line\n" + "padding text here. " * 300 + "the billing  tables\nmoved"
    say(store, "s1", "assistant", text)
    hit = find(store, '"billing tables"', mode="words")["hits"][0]
    assert "**billing  tables**" in hit["snippet"]
    assert hit["snippet"].startswith("…")


def test_every_match_inside_the_window_is_marked(store):
    say(store, "s1", "tool", "cache miss, cache hit, cache miss")
    hit = find(store, "cache", mode="words")["hits"][0]
    assert hit["snippet"] == "**cache** miss, **cache** hit, **cache** miss"


def test_a_prefix_is_marked_to_the_end_of_its_word(store):
    say(store, "s1", "user", "the migrations ran")
    assert find(store, "migra*", mode="words")["hits"][0]["snippet"] == "the **migrations** ran"
