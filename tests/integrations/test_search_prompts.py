"""A prompt a hook recorded is one search hit, on both stores: the person's message and its
``user_prompt`` event are the same words, and the hit names both."""

from __future__ import annotations

from tests.actions.test_search import log
from tests.integrations.conftest import SESSIONS
from vybe.store import open_store

PROMPT = "please move the ledger exports to the nightly queue"


def test_a_hook_recorded_prompt_is_one_hit_naming_both_its_sources(agent):
    assert agent.send("claude", "user_prompt_submit", prompt=PROMPT).code == 0
    events = agent.rows("SELECT kind FROM events WHERE kind = 'user_prompt'")
    assert len(events) == 1  # the event is there: the search leaves it out as a hit
    for query in ("ledger exports", "nightly queue", "ledger -elsewhere"):
        hits = agent.vybe.ok("search", query)["hits"]
        assert [(h["source"], h["sources"]) for h in hits] == [
            ("message", ["message", "user_prompt event"])
        ], query
        assert hits[0]["session_id"] == f"claude:{SESSIONS['claude']}"


def test_the_event_of_a_prompt_is_found_where_only_events_are_searched(agent):
    agent.send("claude", "user_prompt_submit", prompt=PROMPT)
    hits = agent.vybe.ok("search", "ledger exports", "--type", "event")["hits"]
    assert [(h["source"], h["kind"]) for h in hits] == [("event", "user_prompt")]


def test_other_events_still_come_with_the_messages(agent):
    agent.send("claude", "user_prompt_submit", prompt=PROMPT)
    store = open_store(agent.vybe.location)
    log(store, "progress", "ledger exports moved")
    store.close()
    sources = sorted(h["source"] for h in agent.vybe.ok("search", "ledger exports")["hits"])
    assert sources == ["event", "message"]
