"""The proxy records every session it relays: each new input once, however often the client
resends its history, each reply rebuilt from the bytes of its API (streamed or whole), the
harness's inputs labelled, a reply cut short kept as far as it came, and never a key."""

from __future__ import annotations

import json
import socket
import sqlite3

import pytest

from tests.fakes.servers import (
    FakeServer,
    Response,
    anthropic_error,
    anthropic_events,
    anthropic_reply,
    openai_reply,
    responses_reply,
    scripted,
)
from tests.integrations.test_claude_transcript import LOCAL_COMMAND_LINES
from tests.proxy.talk import post
from vybe.context.recorder import record_user
from vybe.proxy.inputs import harness_label
from vybe.store.record import SqliteRecord

CLAUDE = "624a4a58-b34c-462d-a70d-13421c8125a8"
KEY = "sk-ant-api03-very-secret-key"
HEADERS = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
REMINDER = "<system-reminder>\nThe date is 2026-12-02.\n</system-reminder>"


def claude_body(messages: list[dict], stream: bool = True) -> dict:
    user_id = json.dumps({"device_id": "d", "account_uuid": "", "session_id": CLAUDE})
    return {
        "model": "claude-fake",
        "max_tokens": 100,
        "stream": stream,
        "metadata": {"user_id": user_id},
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "messages": messages,
    }


def user(*blocks: dict | str) -> dict:
    content = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
    return {"role": "user", "content": content}


def said(text: str, *calls: tuple[str, str, dict]) -> dict:
    content: list[dict] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    return {"role": "assistant", "content": content}


def result(call_id: str, output: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": output}


def shape(rows) -> list[tuple[str, str]]:
    return [(r.type, r.text) for r in rows]


def test_a_claude_session_is_recorded_turn_by_turn_each_input_once(recorded):
    call = ("toolu_1", "Bash", {"command": "ls src/"})
    replies = [
        anthropic_reply("Listing.", [call]),
        anthropic_reply("There are two files."),
        anthropic_reply("Done."),
    ]
    first = [user(REMINDER, "Mission: port the parser. Never touch tests/.")]
    second = [*first, said("Listing.", call), user(result("toolu_1", "a.py\nb.py"))]
    third = [*second, said("There are two files."), user("thanks")]
    with FakeServer(scripted(replies)) as upstream:
        proxy = recorded(upstream.url)
        for messages in (first, second, third):
            _, response = post(proxy.url, "/v1/messages?beta=true", claude_body(messages), HEADERS)
            assert response.status == 200
            response.read()
        rows = proxy.rows(f"claude:{CLAUDE}", 7)
    assert [r.type for r in rows] == [
        "harness",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]
    assert rows[0].text.startswith('[Harness: context claude "system reminder"]\n<system-reminder>')
    assert rows[1].text == "Mission: port the parser. Never touch tests/."
    assert rows[2].data["tool_calls"] == [
        {"id": "toolu_1", "name": "Bash", "arguments": {"command": "ls src/"}}
    ]
    assert (rows[3].text, rows[3].data["tool_call_id"], rows[3].source) == (
        "a.py\nb.py",
        "toolu_1",
        "Bash",
    )
    assert shape(rows[4:]) == [
        ("assistant", "There are two files."),
        ("user", "thanks"),
        ("assistant", "Done."),
    ]


def test_a_request_sent_again_after_a_429_records_its_inputs_once_and_the_429_passes(recorded):
    limited = anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "7"})
    with FakeServer(scripted([limited, anthropic_reply("ok")])) as upstream:
        proxy = recorded(upstream.url)
        body = claude_body([user("go on")])
        _, first = post(proxy.url, "/v1/messages", body, HEADERS)
        assert (first.status, first.getheader("retry-after")) == (429, "7")
        assert json.loads(first.read())["error"]["type"] == "rate_limit_error"
        _, again = post(proxy.url, "/v1/messages", body, HEADERS)
        again.read()
        rows = proxy.rows(f"claude:{CLAUDE}", 2)
    assert shape(rows) == [("user", "go on"), ("assistant", "ok")]


def test_a_prompt_resent_with_a_harness_reminder_before_it_is_recorded_once(recorded):
    too_long = anthropic_error(400, "invalid_request_error", "prompt is too long")
    replies = [anthropic_reply("ok"), too_long, anthropic_reply("fine")]
    with FakeServer(scripted(replies)) as upstream:
        proxy = recorded(upstream.url)
        first = [user("start"), said("ok")]
        for messages in (
            [user("start")],
            [*first, user("go on")],
            [*first, user(REMINDER, "go on")],
        ):
            post(proxy.url, "/v1/messages", claude_body(messages), HEADERS)[1].read()
        rows = proxy.rows(f"claude:{CLAUDE}", 5)
    assert [r.type for r in rows] == ["user", "assistant", "user", "harness", "assistant"]
    assert [rows[0].text, rows[1].text, rows[2].text, rows[4].text] == [
        "start",
        "ok",
        "go on",
        "fine",
    ]


@pytest.mark.parametrize("text", [*LOCAL_COMMAND_LINES, "<command-name>/compact</command-name>"])
def test_what_claude_code_writes_around_a_slash_command_is_harness_input(text):
    assert harness_label(text) is not None


def test_the_same_words_typed_in_two_turns_are_two_inputs(recorded):
    with FakeServer(scripted([anthropic_reply("a"), anthropic_reply("b")])) as upstream:
        proxy = recorded(upstream.url)
        first = [user("yes")]
        for messages in (first, [*first, said("a"), user("yes")]):
            post(proxy.url, "/v1/messages", claude_body(messages), HEADERS)[1].read()
        rows = proxy.rows(f"claude:{CLAUDE}", 4)
    assert shape(rows) == [("user", "yes"), ("assistant", "a"), ("user", "yes"), ("assistant", "b")]


def test_a_whole_json_reply_is_recorded_as_a_streamed_one_is(recorded):
    with FakeServer(scripted([anthropic_reply("whole")])) as upstream:
        proxy = recorded(upstream.url)
        post(proxy.url, "/v1/messages", claude_body([user("hi")], stream=False), HEADERS)[1].read()
        rows = proxy.rows(f"claude:{CLAUDE}", 2)
    assert shape(rows) == [("user", "hi"), ("assistant", "whole")]
    assert rows[1].data["usage"] == {"input_tokens": 10, "output_tokens": 5}


def test_a_codex_responses_session_records_its_call_and_the_harness_context(recorded):
    call = ("call_1", "exec_command", {"cmd": "pytest -q"})
    replies = [responses_reply("", [call]), responses_reply("All green.")]
    context = "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"
    typed = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run"}]}
    first = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "d"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": context}]},
        typed,
    ]
    asked = {"type": "function_call", "call_id": "call_1", "name": "exec_command"}
    second = [
        *first,
        {**asked, "arguments": json.dumps(call[2])},
        {"type": "function_call_output", "call_id": "call_1", "output": "3 passed"},
    ]
    auth = {"authorization": "Bearer sk-openai-secret"}
    with FakeServer(scripted(replies)) as upstream:
        proxy = recorded(upstream.url)
        for items in (first, second):
            body = {"model": "gpt-fake", "stream": True, "input": items, "prompt_cache_key": "t-9"}
            post(proxy.url, "/v1/responses", body, auth)[1].read()
        rows = proxy.rows("codex:t-9", 6)
    kinds = ["harness", "harness", "user", "assistant", "tool", "assistant"]
    assert [r.type for r in rows] == kinds
    assert rows[1].text.startswith('[Harness: context codex "environment context"]')
    asked = {"id": "call_1", "name": "exec_command", "arguments": {"cmd": "pytest -q"}}
    assert rows[3].data["tool_calls"][0] == asked
    assert (rows[4].text, rows[4].source) == ("3 passed", "exec_command")
    assert rows[5].text == "All green."


def test_a_chat_completions_stream_is_rebuilt_with_its_tool_call(recorded):
    call = ("call_7", "read", {"path": "README.md"})
    with FakeServer(scripted([openai_reply("Reading.", [call])])) as upstream:
        proxy = recorded(upstream.url)
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "read it"}]}
        post(proxy.url, "/v1/chat/completions", body, {"x-vybe-session": "mine"})[1].read()
        rows = proxy.rows("proxy:mine", 2)
    assert shape(rows) == [("user", "read it"), ("assistant", "Reading.")]
    assert rows[1].data["tool_calls"] == [
        {"id": "call_7", "name": "read", "arguments": {"path": "README.md"}}
    ]


def test_a_session_the_hooks_record_is_not_recorded_again(recorded, store_location):
    from vybe.store import open_store

    store = open_store(store_location)
    record_user(SqliteRecord(store), f"claude:{CLAUDE}", "typed, kept by the prompt hook")
    store.close()
    with FakeServer(scripted([anthropic_reply("ok")])) as upstream:
        proxy = recorded(upstream.url)
        post(proxy.url, "/v1/messages", claude_body([user("typed")]), HEADERS)[1].read()
        rows = proxy.rows(f"claude:{CLAUDE}", 1)
    assert shape(rows) == [("user", "typed, kept by the prompt hook")]


def test_a_client_that_leaves_mid_stream_leaves_the_reply_as_far_as_it_came_marked_cut(recorded):
    events = anthropic_events(anthropic_reply("word " * 60).body)
    slow = Response(events=events, gap=0.02)
    with FakeServer(scripted([slow])) as upstream:
        proxy = recorded(upstream.url)
        conn, response = post(proxy.url, "/v1/messages", claude_body([user("long")]), HEADERS)
        seen = b""
        while seen.count(b"text_delta") < 3:
            seen += response.read1(1 << 16)
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
        rows = proxy.rows(f"claude:{CLAUDE}", 2)
    assert [r.type for r in rows] == ["user", "assistant"]
    kept = rows[1].text
    assert 0 < len(kept) < 300 and set(kept.removesuffix("…").split()) <= {"word"}
    assert rows[1].data["cut"] == "client disconnected"


def test_a_reply_that_ends_inside_a_token_keeps_no_part_of_it(recorded):
    token = "ghp_" + "Gb8gNc3Ghkjs9OIiQ2mP7rT4wZ8yL1nBv5Xd"
    events = anthropic_events(anthropic_reply(f"use {token} for the push").body, piece=3)
    # message_start, ping, the block's start, then 3 characters a delta: "use ghp_" and 16
    cut = 3 + (len("use ghp_") + 16) // 3 - 1
    with FakeServer(scripted([Response(events=events[: cut + 1])])) as upstream:
        proxy = recorded(upstream.url)
        post(proxy.url, "/v1/messages", claude_body([user("push it")]), HEADERS)[1].read()
        rows = proxy.rows(f"claude:{CLAUDE}", 2)
    assert rows[1].data["cut"] == "the stream ended early"
    assert rows[1].text == "use …"
    assert "Gb8gNc3G" not in repr(rows)


def test_no_api_key_reaches_the_record(recorded, store_location):
    with FakeServer(scripted([anthropic_reply("ok")])) as upstream:
        proxy = recorded(upstream.url)
        post(proxy.url, "/v1/messages", claude_body([user("hi")]), HEADERS)[1].read()
        proxy.rows(f"claude:{CLAUDE}", 2)
    if store_location.startswith("postgres"):
        return  # the same rows; the file check below is SQLite's
    dump = "\n".join(sqlite3.connect(store_location).iterdump())
    assert "sk-ant" not in dump and KEY not in "".join(proxy.notes)


def test_a_session_begun_before_the_proxy_is_recorded_whole_at_its_first_request(recorded):
    call = ("toolu_9", "Read", {"file_path": "src/lexer.rs"})
    earlier = [
        user("Mission: port the lexer."),
        said("Reading it.", call),
        user(result("toolu_9", "fn lex() {}")),
        said("It is one function."),
        user("go on"),
    ]
    with FakeServer(scripted([anthropic_reply("Going on."), anthropic_reply("ok")])) as up:
        proxy = recorded(up.url)
        post(proxy.url, "/v1/messages", claude_body(earlier), HEADERS)[1].read()
        later = [*earlier, said("Going on."), user("and now?")]
        post(proxy.url, "/v1/messages", claude_body(later), HEADERS)[1].read()
        rows = proxy.rows(f"claude:{CLAUDE}", 8)
    assert shape(rows) == [
        ("user", "Mission: port the lexer."),
        ("assistant", "Reading it."),
        ("tool", "fn lex() {}"),
        ("assistant", "It is one function."),
        ("user", "go on"),
        ("assistant", "Going on."),
        ("user", "and now?"),
        ("assistant", "ok"),
    ]
    assert rows[1].data["tool_calls"][0]["arguments"] == {"file_path": "src/lexer.rs"}
