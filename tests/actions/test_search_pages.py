"""Paging a search: following ``next_cursor`` hands out every hit exactly once, whether a
page ran to its end or was stopped by the time bound, with messages and events mixed, and
with new rows written between pages (they belong to a later search, not to this one)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.actions.test_search import find, say
from vybe import clock
from vybe.store import events as event_rows
from vybe.store import search as search_rows
from vybe.store import search_pages
from vybe.store.deadline import Deadline

MODES = {"words": "cache", "literal": "/srv/app/cache"}


def _event(store, kind: str, message: str) -> None:
    event = event_rows.NewEvent(kind, "worker-1", message)
    store.transact(lambda conn: event_rows.insert(conn, event, clock.iso(clock.now())))


def _record(store, rounds: int = 40) -> set:
    """Sessions of real shape: a request, replies, tool output with paths and errors, the
    harness's notes, and events logged along the way; returns the hits ``cache`` has."""
    hits = set()
    for n in range(rounds):
        session = f"claude:{n % 3}"
        rows = [
            ("user", f"round {n}: why is the build slow? look at the cache" if n % 4 else "ok"),
            ("assistant", f"Reading /srv/app/cache/{n}.py and the test logs for round {n}."),
            ("tool", f"$ pytest -q\nE   KeyError: 'k{n}'\n  /srv/app/cache/{n}.py:{n} in get\n"),
            ("harness", "<system-reminder>todo list is empty</system-reminder>"),
            ("assistant", "The miss comes from a stale key." + " detail" * (n % 9)),
        ]
        for kind, text in rows:
            say(store, session, kind, text)
            if "cache" in text:
                hits.add(("message", session, text))
        if n % 3 == 0:
            _event(store, "progress", f"warmed the cache for round {n} (/srv/app/cache/{n})")
            hits.add(("event", None, f"warmed the cache for round {n} (/srv/app/cache/{n})"))
        if n % 5 == 0:
            _event(store, "note", f"round {n} reviewed")
    return hits


def _key(hit: dict) -> tuple:
    if hit["source"] == "event":
        return ("event", hit["event_id"])
    return ("message", hit["session_id"], hit["seq"])


def _follow(store, text: str, mode: str, limit: int, between=None) -> tuple[list, list]:
    """Every hit of every page, in order, and each page's ``complete``."""
    seen, complete, cursor = [], [], None
    while True:
        page = find(store, text, mode=mode, limit=limit, cursor=cursor)
        seen += [_key(h) for h in page["hits"]]
        complete.append(page["complete"])
        if (cursor := page["next_cursor"]) is None:
            return seen, complete
        if between:
            between()


def _expected(store, mode: str, hits: set) -> list:
    literal = mode == "literal"
    return sorted(
        _key(h)
        for h in find(store, MODES[mode], mode=mode, limit=1000)["hits"]
        if not literal or MODES[mode] in h["snippet"].replace("**", "")
    )


@pytest.mark.parametrize("mode", MODES)
def test_pages_stopped_by_the_time_bound_hand_out_every_hit_once(store, monkeypatch, mode):
    hits = _record(store)
    everything = _expected(store, mode, hits)
    assert len(everything) == len({h for h in hits if mode == "words" or "/srv" in h[2]})
    monkeypatch.setattr(search_pages, "SPAN", 8)  # ids read before the clock is looked at
    monkeypatch.setattr(search_rows, "SECONDS", 0)  # every page is stopped after one span
    seen, complete = _follow(store, MODES[mode], mode, limit=7)
    assert len(seen) == len(set(seen)), "a hit was handed out twice"
    assert sorted(seen) == everything
    assert complete.count(False) > 1


class _Looks(Deadline):
    """A time bound that passes once it has been looked at three times: a machine where a
    batch of rows takes a while, so the bound stops reads midway, where it falls."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.looks = 0

    def __call__(self) -> int:
        self.looks += 1
        return int(self.looks > 3)


@pytest.mark.sqlite_only("a SQLite read looks at the bound between batches of rows")
@pytest.mark.parametrize("mode", MODES)
def test_pages_whose_reads_the_bound_stops_midway_hand_out_every_hit_once(store, monkeypatch, mode):
    hits = _record(store)
    everything = _expected(store, mode, hits)
    monkeypatch.setattr(search_rows, "BATCH", 2)
    monkeypatch.setattr(search_rows, "Deadline", _Looks)
    seen, complete = _follow(store, MODES[mode], mode, limit=7)
    assert len(seen) == len(set(seen)), "a hit was handed out twice"
    assert sorted(seen) == everything
    assert complete.count(False) > 1  # not first spans: each source's ids fit in one


@pytest.mark.parametrize("mode", MODES)
def test_pages_of_a_ranked_window_wider_than_a_page_hand_out_every_hit_once(
    store, monkeypatch, mode
):
    hits = _record(store)
    everything = _expected(store, mode, hits)
    monkeypatch.setattr(search_rows, "RANK_WINDOW", 10)  # three pages and a bit per window
    seen, complete = _follow(store, MODES[mode], mode, limit=3)
    assert len(seen) == len(set(seen))
    assert sorted(seen) == everything
    assert all(complete)


@pytest.mark.parametrize("stopped", [False, True], ids=["complete", "stopped"])
@pytest.mark.parametrize("mode", MODES)
def test_rows_written_between_pages_neither_shift_nor_join_the_pages(
    store, monkeypatch, mode, stopped
):
    hits = _record(store)
    everything = _expected(store, mode, hits)
    monkeypatch.setattr(search_rows, "RANK_WINDOW", 10)
    if stopped:
        monkeypatch.setattr(search_pages, "SPAN", 8)
        monkeypatch.setattr(search_rows, "SECONDS", 0)
    written = iter(range(1000))

    def write_newer_matches() -> None:
        n = next(written)
        say(store, "claude:0", "tool", f"cache hit at /srv/app/cache/new{n}.py")
        _event(store, "progress", f"cache warmed again (/srv/app/cache/new{n})")

    seen, _ = _follow(store, MODES[mode], mode, limit=4, between=write_newer_matches)
    assert len(seen) == len(set(seen))
    assert sorted(seen) == everything
    assert next(written) > 2  # rows were written between the pages


def test_a_cursor_keeps_its_first_pages_time_range(store):
    _record(store, rounds=10)
    first = find(store, "cache", since="1h", limit=2)
    clock.shift(timedelta(days=2))
    try:
        second = find(store, "cache", since="1h", limit=2, cursor=first["next_cursor"])
    finally:
        clock.reset()
    assert second["count"] == 2  # "1h" is not read again two days later
    assert find(store, "cache", since="1h")["count"] > 4


def test_a_cursor_is_refused_for_another_query_and_changes_nothing(vybe):
    for n in range(3):
        vybe.ok("session", "say", "s1", f"billing note {n} about invoices")
    cursor = vybe.ok("search", "billing", "--limit", "1")["next_cursor"]
    assert vybe.ok("search", "billing", "--limit", "1", "--cursor", cursor)["count"] == 1
    for args in (
        ("invoices", "--cursor", cursor),
        ("billing", "--type", "user", "--cursor", cursor),
        ("billing", "--cursor", cursor[:-4]),
        ("billing", "--cursor", "W10="),
    ):
        result = vybe.refused("INVALID_INPUT", "search", *args)
        assert result.envelope["error_context"]["field"] == "cursor"
