"""`vybe search` on every surface from one declaration: the command line, the MCP tool and
the agent's tool find the same hits and refuse the same bad input with INVALID_INPUT."""

from __future__ import annotations

import pytest

from vybe.agent.tasks import TaskTools
from vybe.llm.base import ToolCall
from vybe.store import open_store

PROMPT = "Please migrate the billing tables, oldest first; keep /srv/app/ledger.py as it is."


@pytest.fixture
def recorded(vybe):
    vybe.ok("session", "say", "s1", PROMPT)
    vybe.ok("session", "say", "s2", "billing again, elsewhere")
    return vybe


def test_the_cli_finds_words_and_paths_with_filters_and_pages(recorded):
    found = recorded.ok("search", "billing", "--session-id", "s1")
    assert [(h["session_id"], h["seq"], h["type"]) for h in found["hits"]] == [("s1", 1, "user")]
    assert "**billing**" in found["hits"][0]["snippet"]
    path = recorded.ok("search", "/srv/app/ledger.py")
    assert path["mode"] == "literal" and path["count"] == 1
    first = recorded.ok("search", "billing", "--limit", "1")
    assert first["count"] == 1 and first["next_cursor"]
    second = recorded.ok(
        "search", "--query", "billing", "--limit", "1", "--cursor", first["next_cursor"]
    )
    assert second["next_cursor"] is None
    assert {first["hits"][0]["session_id"], second["hits"][0]["session_id"]} == {"s1", "s2"}
    assert recorded.ok("search", "billing", "--type", "user", "--since", "1h")["count"] == 2


@pytest.mark.parametrize(
    "args",
    [
        ('"unterminated', "--mode", "words"),
        ("AND",),
        ("x) OR (y",),
        ("x" * 1001,),
        ("ab", "--mode", "literal"),
        ("billing", "--since", "yesterday"),
        ("billing", "--session-id", " "),
        ("billing", "--agent-name", "a" * 129),
    ],
)
def test_bad_queries_are_invalid_input_and_change_nothing(recorded, args):
    result = recorded.refused("INVALID_INPUT", "search", *args)
    fields = {"query", "since", "session_id", "agent_name"}
    assert result.envelope["error_context"]["field"] in fields


@pytest.mark.parametrize(
    "args",
    [("billing", "--mode", "fuzzy"), ("billing", "--limit", "0"), ("billing", "--type", "x")],
)
def test_bad_flags_are_usage_errors(recorded, args):
    recorded.refused("USAGE_ERROR", "search", *args, exit_code=2)


def test_the_mcp_tool_and_the_agent_tool_find_what_the_cli_finds(recorded, mcp_tools):
    tools = mcp_tools(recorded.settings("mcp-agent"))
    cli = recorded.ok("search", "billing", "--session-id", "s1")
    mcp = tools.call("search", {"query": "billing", "session_id": "s1"})
    assert not mcp["isError"] and mcp["structuredContent"]["hits"] == cli["hits"]
    store = open_store(recorded.location)
    try:
        agent = TaskTools(store, "chat-agent", "ses_1")
        call = ToolCall("c1", "search", {"query": "billing", "session_id": "s1"})
        outcome = agent.handlers()["search"](call)
    finally:
        store.close()
    assert not outcome.is_error and "**billing**" in outcome.text


def test_the_mcp_and_agent_tools_refuse_bad_queries_naming_the_argument(recorded, mcp_tools):
    tools = mcp_tools(recorded.settings("mcp-agent"))
    for arguments, field in [
        ({"query": '"open'}, "query"),
        ({"query": "billing", "limit": 0}, "limit"),
        ({"query": "billing", "mode": "fuzzy"}, "mode"),
        ({"query": "x" * 1001}, "query"),
        ({"query": "billing", "colour": "red"}, "colour"),
        ({}, "query"),
    ]:
        result = tools.call("search", arguments)
        assert result["isError"], arguments
        envelope = result["structuredContent"]
        assert (envelope["error_code"], envelope["error_context"]["field"]) == (
            "INVALID_INPUT",
            field,
        )
    store = open_store(recorded.location)
    try:
        outcome = TaskTools(store, "a", "ses_1").handlers()["search"](
            ToolCall("c2", "search", {"query": "x) OR (y", "mode": "words"})
        )
    finally:
        store.close()
    assert outcome.is_error and outcome.text.startswith("INVALID_INPUT: ")


def test_a_query_after_a_double_dash_is_the_query_even_when_it_begins_with_a_minus(recorded):
    assert recorded.ok("search", "--", "billing -elsewhere")["count"] == 1
    assert recorded.ok("search", "--limit", "5", "--", "billing -elsewhere")["count"] == 1
    refused = recorded.refused("INVALID_INPUT", "search", "--", "-billing")
    assert "left out" in refused.envelope["error"]


UUID = "6f1c2d3e-0000-4aaa-8bbb-123456789abc"  # a session id as Claude Code shows it


def test_a_session_named_as_its_agent_shows_it_is_the_session_on_every_command(vybe):
    vybe.ok("session", "say", f"claude:{UUID}", "billing in the agent's session")
    vybe.ok("session", "say", "s2", "billing elsewhere")
    hits = vybe.ok("search", "billing", "--session-id", UUID)["hits"]
    assert [h["session_id"] for h in hits] == [f"claude:{UUID}"]
    assert vybe.ok("session", "receipts", UUID)["session_id"] == f"claude:{UUID}"
    assert vybe.ok("session", "show", UUID)["session_id"] == f"claude:{UUID}"
    said = vybe.ok("session", "say", UUID, "more words")
    assert (said["session_id"], said["seq"]) == (f"claude:{UUID}", 2)


def test_an_id_two_agents_sessions_share_is_refused_naming_both(vybe):
    for agent in ("claude", "codex"):
        vybe.ok("session", "say", f"{agent}:{UUID}", "billing")
    for args in (("search", "billing", "--session-id", UUID), ("session", "receipts", UUID)):
        refused = vybe.refused("INVALID_INPUT", *args)
        assert refused.envelope["error_context"]["sessions"] == [
            f"claude:{UUID}",
            f"codex:{UUID}",
        ]


def test_an_unknown_session_is_not_found_alike_in_any_form(vybe):
    vybe.ok("session", "say", "s1", "billing")
    for session in (UUID, f"claude:{UUID}"):
        vybe.refused("NOT_FOUND", "session", "receipts", session)
        assert vybe.ok("search", "billing", "--session-id", session)["count"] == 0
