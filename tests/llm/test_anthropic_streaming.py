"""Streamed Messages against a fake Anthropic server sending real chunked SSE bodies."""

from __future__ import annotations

import pytest

from tests.fakes.servers import (
    FakeServer,
    Response,
    anthropic_events,
    anthropic_reply,
    scripted,
    sse,
)
from vybe.errors import ModelError
from vybe.llm.anthropic import AnthropicMessages
from vybe.llm.base import ContextLengthExceeded, Message, Request, ToolCall, Watch
from vybe.llm.http import RetryPolicy

FAST = RetryPolicy(attempts=3, base_delay=0.01, timeout=5)
TEXT = "Claude streams its text as deltas of a content block."
CALLS = [
    ("toolu_1", "read", {"path": "docs/checkpoints.md"}),
    ("toolu_2", "edit", {"path": "a.py", "old_text": "x = 1", "new_text": "x = 2"}),
]


def model_for(server: FakeServer, **extra) -> AnthropicMessages:
    return AnthropicMessages(
        "claude-test", api_key="sk-ant-test", base_url=server.url, policy=FAST, **extra
    )


def ask(text: str = "hi") -> Request:
    return Request(system="be brief", messages=(Message("user", text),))


def both_ways(answer: Response):
    """The same scripted answer asked for streamed, then whole."""
    with FakeServer(scripted([answer, answer])) as server:
        streamed = model_for(server).complete(ask())
        whole = model_for(server, stream=False).complete(ask())
    return streamed, whole


def error_event(kind: str, message: str) -> str:
    return sse("error", {"type": "error", "error": {"type": kind, "message": message}})


def test_streamed_text_reaches_the_watch_in_order_piece_by_piece():
    pieces: list[str] = []
    with FakeServer(scripted([anthropic_reply(TEXT)])) as server:
        reply = model_for(server).complete(ask(), Watch(pieces.append))
    assert len(pieces) > 10
    assert "".join(pieces) == TEXT == reply.text


def test_request_asks_to_stream():
    with FakeServer(scripted([anthropic_reply("ok")])) as server:
        model_for(server).complete(ask())
    assert server.posts[0].body["stream"] is True


def test_streamed_reply_with_cache_usage_equals_the_non_streaming_reply():
    streamed, whole = both_ways(anthropic_reply(TEXT, usage=(20, 9, 1000)))
    assert streamed == whole
    assert (streamed.usage.input_tokens, streamed.usage.output_tokens) == (1020, 9)


def test_tool_inputs_assemble_from_json_pieces():
    streamed, whole = both_ways(anthropic_reply("Let me look.", calls=CALLS))
    assert streamed == whole
    assert streamed.tool_calls == tuple(ToolCall(*call) for call in CALLS)
    assert streamed.stop_reason == "tool_use"


def test_tool_without_input_gets_an_empty_input():
    streamed, whole = both_ways(anthropic_reply(calls=[("toolu_1", "task_list", {})]))
    assert streamed == whole
    assert streamed.tool_calls[0].arguments == {}


def test_overloaded_error_event_inside_a_200_stream_is_retried():
    events = anthropic_events(anthropic_reply(TEXT).body)[:5]
    overloaded = Response(events=[*events, error_event("overloaded_error", "Overloaded")])
    retries: list[str] = []
    with FakeServer(scripted([overloaded, anthropic_reply("ok")])) as server:
        reply = model_for(server).complete(ask(), Watch(lambda piece: None, retries.append))
    assert reply.text == "ok"
    assert retries == ["529: Overloaded"]


def test_prompt_too_long_error_event_is_a_context_length_refusal_without_retry():
    refusal = Response(events=[error_event("invalid_request_error", "prompt is too long")])
    with FakeServer(scripted([refusal])) as server, pytest.raises(ContextLengthExceeded):
        model_for(server).complete(ask())
    assert len(server.posts) == 1


def test_stream_ending_without_message_stop_is_retried():
    events = anthropic_events(anthropic_reply(TEXT).body)[:-1]
    with FakeServer(scripted([Response(events=events), anthropic_reply("whole")])) as server:
        assert model_for(server).complete(ask()).text == "whole"
    assert len(server.posts) == 2


def test_stream_cut_mid_way_is_retried():
    cut = Response(events=anthropic_events(anthropic_reply(TEXT).body), die=True)
    with FakeServer(scripted([cut, anthropic_reply(TEXT)])) as server:
        assert model_for(server).complete(ask()).text == TEXT
    assert len(server.posts) == 2


def test_error_events_every_time_are_a_model_error_after_the_attempts():
    overloaded = Response(events=[error_event("overloaded_error", "Overloaded")])
    with (
        FakeServer(scripted([overloaded] * 3)) as server,
        pytest.raises(ModelError, match="3 attempts: 529: Overloaded"),
    ):
        model_for(server).complete(ask())


def test_json_answer_to_a_streaming_request_is_the_reply_shown_in_one_piece():
    pieces: list[str] = []
    with FakeServer(scripted([anthropic_reply(TEXT)]), streams=False) as server:
        reply = model_for(server).complete(ask(), Watch(pieces.append))
    assert reply.text == TEXT
    assert pieces == [TEXT]
    assert len(server.posts) == 1
