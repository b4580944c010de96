"""The Messages adapter against a fake Anthropic server on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.fakes.servers import FakeServer, Response, anthropic_error, anthropic_reply, scripted
from vybe.errors import ModelError
from vybe.llm.anthropic import AnthropicMessages
from vybe.llm.base import ContextLengthExceeded, Message, Request, ToolCall, ToolSpec
from vybe.llm.http import RetryPolicy

FAST = RetryPolicy(attempts=3, base_delay=0.01, timeout=5)
TOOL = ToolSpec(
    "read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)


def model_for(server: FakeServer, **extra) -> AnthropicMessages:
    return AnthropicMessages(
        "claude-test", api_key="sk-ant-test", base_url=server.url, policy=FAST, **extra
    )


def ask(text: str = "hi", **extra) -> Request:
    return Request(system="be brief", messages=(Message("user", text),), **extra)


def test_text_reply_and_usage_count_cached_input():
    with FakeServer(scripted([anthropic_reply("hello", usage=(20, 9, 1000))])) as server:
        reply = model_for(server).complete(ask())
    assert reply.text == "hello"
    assert reply.stop_reason == "end"
    assert reply.usage.input_tokens == 1020
    assert reply.usage.cache_read_tokens == 1000
    assert reply.usage.output_tokens == 9


def test_request_has_top_level_system_headers_and_input_schema():
    with FakeServer(scripted([anthropic_reply("ok")])) as server:
        model_for(server).complete(ask(tools=(TOOL,), max_tokens=100))
    sent = server.posts[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-test"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.body["system"][0]["text"] == "be brief"
    assert sent.body["tools"][0]["input_schema"] == TOOL.parameters
    assert sent.body["max_tokens"] == 100
    assert sent.body["messages"][0]["role"] == "user"


def test_tool_use_blocks_are_parsed():
    answer = anthropic_reply("let me look", calls=[("toolu_1", "read", {"path": "a.txt"})])
    with FakeServer(scripted([answer])) as server:
        reply = model_for(server).complete(ask(tools=(TOOL,)))
    assert reply.text == "let me look"
    assert reply.stop_reason == "tool_use"
    assert reply.tool_calls == (ToolCall("toolu_1", "read", {"path": "a.txt"}),)


def test_tool_results_travel_in_one_user_message_after_the_tool_use():
    history = (
        Message("user", "read two files"),
        Message(
            "assistant",
            "",
            (
                ToolCall("toolu_1", "read", {"path": "a"}),
                ToolCall("toolu_2", "read", {"path": "b"}),
            ),
        ),
        Message("tool", "A", tool_call_id="toolu_1"),
        Message("tool", "B", tool_call_id="toolu_2"),
        Message("user", "and now?"),
    )
    with FakeServer(scripted([anthropic_reply("done")])) as server:
        model_for(server).complete(Request(system="", messages=history))
    sent = server.posts[0].body
    assert "system" not in sent
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    assistant, results = sent["messages"][1]["content"], sent["messages"][2]["content"]
    assert [b["type"] for b in assistant] == ["tool_use", "tool_use"]
    assert [b["type"] for b in results] == ["tool_result", "tool_result", "text"]
    assert results[0]["tool_use_id"] == "toolu_1" and results[0]["content"] == "A"
    assert results[-1]["cache_control"] == {"type": "ephemeral"}


def test_max_tokens_stop_maps_to_length():
    with FakeServer(scripted([anthropic_reply("cut", stop="max_tokens")])) as server:
        assert model_for(server).complete(ask()).stop_reason == "length"


def test_529_overloaded_then_success_is_retried():
    answers = [anthropic_error(529, "overloaded_error", "Overloaded"), anthropic_reply("ok")]
    with FakeServer(scripted(answers)) as server:
        assert model_for(server).complete(ask()).text == "ok"
    assert len(server.posts) == 2


def test_429_then_success_uses_retry_after():
    limited = anthropic_error(429, "rate_limit_error", "slow", {"retry-after": "0"})
    with FakeServer(scripted([limited, anthropic_reply("ok")])) as server:
        assert model_for(server).complete(ask()).text == "ok"


@pytest.mark.parametrize(
    "message",
    [
        "prompt is too long: 208656 tokens > 200000 maximum",
        "input length and `max_tokens` exceed context limit: 197626 + 8192 > 200000,"
        " decrease input length or `max_tokens` and try again",
    ],
)
def test_prompt_too_long_raises_context_length_exceeded(message):
    refusal = anthropic_error(400, "invalid_request_error", message)
    with FakeServer(scripted([refusal])) as server, pytest.raises(ContextLengthExceeded):
        model_for(server).complete(ask())
    assert len(server.posts) == 1


def test_request_too_large_413_is_a_context_length_refusal():
    refusal = anthropic_error(413, "request_too_large", "Request exceeds the maximum size")
    with FakeServer(scripted([refusal])) as server, pytest.raises(ContextLengthExceeded):
        model_for(server).complete(ask())


def test_server_dying_mid_response_then_success():
    answers = [Response(die=True, body={"content": "x" * 300}), anthropic_reply("ok")]
    with FakeServer(scripted(answers)) as server:
        assert model_for(server, stream=False).complete(ask()).text == "ok"


def test_authentication_error_says_the_key_was_rejected():
    refused = anthropic_error(401, "authentication_error", "invalid x-api-key")
    with (
        FakeServer(scripted([refused])) as server,
        pytest.raises(ModelError, match="rejected the API key"),
    ):
        model_for(server).complete(ask())
