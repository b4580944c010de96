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


def test_the_mcp_tool_and_the_agent_tool_find_what_the_cli_finds(recorded):
    from vybe.integrations.mcp_tools import Tools  # the MCP SDK: only where it is used

    tools = Tools(recorded.settings("mcp-agent"))
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


def test_the_mcp_and_agent_tools_refuse_bad_queries_naming_the_argument(recorded):
    from vybe.integrations.mcp_tools import Tools  # the MCP SDK: only where it is used

    tools = Tools(recorded.settings("mcp-agent"))
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
