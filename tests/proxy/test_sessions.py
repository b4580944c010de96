"""The proxy names a request's session as the hooks do (claude:<id>, codex:<id>), from the
fields the real clients send (reference: Claude Code 2.1.197's ``metadata.user_id`` JSON
string, Codex 0.171's ``client_metadata`` and ``prompt_cache_key``)."""

from __future__ import annotations

import json

from vybe.proxy import wire

CLAUDE_ID = "624a4a58-b34c-462d-a70d-13421c8125a8"


def test_a_claude_code_request_is_named_by_the_session_in_its_user_id_string():
    user_id = json.dumps({"device_id": "d", "account_uuid": "", "session_id": CLAUDE_ID})
    body = {"metadata": {"user_id": user_id}, "messages": [{"role": "user", "content": "hi"}]}
    assert wire.session_of(wire.ANTHROPIC, {}, body) == f"claude:{CLAUDE_ID}"


def test_a_codex_request_is_named_by_its_client_metadata_else_its_prompt_cache_key():
    both = {"client_metadata": {"session_id": "t-1"}, "prompt_cache_key": "t-2", "input": []}
    assert wire.session_of(wire.RESPONSES, {}, both) == "codex:t-1"
    assert wire.session_of(wire.RESPONSES, {}, {"prompt_cache_key": "t-2"}) == "codex:t-2"


def test_a_named_header_wins_and_an_unknown_client_is_named_by_its_first_message():
    body = {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "go"}]}
    assert wire.session_of(wire.CHAT, {"x-vybe-session": "mine"}, body) == "proxy:mine"
    first = wire.session_of(wire.CHAT, {}, body)
    assert first is not None and first.startswith("proxy:")
    assert wire.session_of(wire.CHAT, {}, {**body, "model": "other"}) == first
    assert wire.session_of(wire.CHAT, {}, {"messages": []}) is None


def test_a_malformed_user_id_falls_back_to_the_first_message():
    body = {"metadata": {"user_id": "{not json"}, "messages": [{"role": "user", "content": "x"}]}
    assert wire.session_of(wire.ANTHROPIC, {}, body).startswith("proxy:")
