"""The Chat Completions adapter against a fake OpenAI server on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from tests.fakes.servers import FakeServer, Response, openai_error, openai_reply, scripted
from vybe.errors import ModelError
from vybe.llm.base import ContextLengthExceeded, Message, Request, ToolCall, ToolSpec
from vybe.llm.http import RetryPolicy
from vybe.llm.openai_compat import OpenAICompatible, parse

FAST = RetryPolicy(attempts=3, base_delay=0.01, timeout=5)
TOOL = ToolSpec(
    "read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)


def model_for(server: FakeServer, key: str | None = "sk-test", **extra) -> OpenAICompatible:
    url = server.url + "/v1"
    return OpenAICompatible("gpt-test", base_url=url, api_key=key, policy=FAST, **extra)


def ask(text: str = "hi", **extra) -> Request:
    return Request(system="be brief", messages=(Message("user", text),), **extra)


def test_text_reply_and_usage_are_parsed():
    with FakeServer(scripted([openai_reply("hello", usage=(120, 7, 100))])) as server:
        reply = model_for(server).complete(ask())
    assert reply.text == "hello"
    assert reply.stop_reason == "end"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (120, 7)
    assert reply.usage.cache_read_tokens == 100


def test_request_carries_system_tools_and_bearer_key():
    with FakeServer(scripted([openai_reply("ok")])) as server:
        model_for(server).complete(ask(tools=(TOOL,), max_tokens=321))
    sent = server.posts[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == "Bearer sk-test"
    assert sent.body["messages"][0] == {"role": "system", "content": "be brief"}
    assert sent.body["tools"][0]["function"]["name"] == "read"
    assert sent.body["max_tokens"] == 321


def test_tool_calls_are_parsed_with_their_arguments():
    answer = openai_reply(calls=[("call_1", "read", {"path": "a.txt"})])
    with FakeServer(scripted([answer])) as server:
        reply = model_for(server).complete(ask(tools=(TOOL,)))
    assert reply.stop_reason == "tool_use"
    assert reply.tool_calls == (ToolCall("call_1", "read", {"path": "a.txt"}),)


def test_tool_history_is_sent_as_tool_calls_and_tool_role():
    history = (
        Message("user", "read a.txt"),
        Message("assistant", "", (ToolCall("call_1", "read", {"path": "a.txt"}),)),
        Message("tool", "contents", tool_call_id="call_1"),
    )
    with FakeServer(scripted([openai_reply("done")])) as server:
        model_for(server).complete(Request(system="", messages=history))
    sent = server.posts[0].body["messages"]
    assert sent[1]["tool_calls"][0]["function"] == {
        "name": "read",
        "arguments": '{"path": "a.txt"}',
    }
    assert sent[1]["content"] is None
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": "contents"}


def test_length_finish_maps_to_length_stop():
    with FakeServer(scripted([openai_reply("cut", finish="length")])) as server:
        assert model_for(server).complete(ask()).stop_reason == "length"


def test_429_then_success_honours_retry_after():
    answers = [openai_error(429, "slow down", "rate_limit_exceeded", {"Retry-After": "1"})]
    with FakeServer(scripted([*answers, openai_reply("ok")])) as server:
        started = time.monotonic()
        reply = model_for(server).complete(ask())
        elapsed = time.monotonic() - started
    assert reply.text == "ok"
    assert elapsed >= 0.9
    assert len(server.posts) == 2


def test_500_then_success_is_retried():
    answers = [openai_error(500, "boom"), openai_error(503, "busy"), openai_reply("ok")]
    with FakeServer(scripted(answers)) as server:
        assert model_for(server).complete(ask()).text == "ok"
    assert len(server.posts) == 3


def test_context_length_code_raises_context_length_exceeded_without_retry():
    refusal = openai_error(
        400, "This model's maximum context length is 8192 tokens.", "context_length_exceeded"
    )
    with FakeServer(scripted([refusal])) as server, pytest.raises(ContextLengthExceeded):
        model_for(server).complete(ask())
    assert len(server.posts) == 1


def test_llama_cpp_overflow_on_500_is_a_context_length_refusal():
    body = {
        "error": {
            "code": 500,
            "message": "the request exceeds the available context size",
            "type": "exceed_context_size_error",
        }
    }
    with (
        FakeServer(scripted([Response(500, body)])) as server,
        pytest.raises(ContextLengthExceeded),
    ):
        model_for(server).complete(ask())


def test_server_dying_mid_response_is_retried():
    with FakeServer(scripted([Response(die=True, body={"x": "y" * 200}), openai_reply("ok")])) as s:
        assert model_for(s, stream=False).complete(ask()).text == "ok"


def test_server_always_dying_is_a_model_error_after_the_attempts():
    dead = [Response(die=True, body={"x": "y" * 200})] * 3
    with FakeServer(scripted(dead)) as server, pytest.raises(ModelError, match="3 attempts"):
        model_for(server, stream=False).complete(ask())


def test_bad_request_is_a_model_error_with_the_provider_message():
    with (
        FakeServer(scripted([openai_error(400, "messages: bad role")])) as server,
        pytest.raises(ModelError, match="bad role") as caught,
    ):
        model_for(server).complete(ask())
    assert not isinstance(caught.value, ContextLengthExceeded)


def test_quota_429_is_not_retried():
    with (
        FakeServer(scripted([openai_error(429, "no credit", "insufficient_quota")])) as server,
        pytest.raises(ModelError, match="no credit"),
    ):
        model_for(server).complete(ask())
    assert len(server.posts) == 1


def test_check_refuses_a_rejected_key():
    probe = openai_error(401, "Incorrect API key provided")
    with (
        FakeServer(scripted([]), probe=probe) as server,
        pytest.raises(ModelError, match="rejected the API key"),
    ):
        model_for(server).check()


def test_check_on_unreachable_server_is_a_clear_error():
    with FakeServer(scripted([])) as server:
        url = server.url
    model = OpenAICompatible("gpt-test", base_url=url + "/v1", policy=FAST)
    with pytest.raises(ModelError, match="cannot reach"):
        model.check()


def test_official_endpoint_asks_with_max_completion_tokens():
    model = OpenAICompatible("gpt-4.1", api_key="sk-x", policy=FAST)
    assert model.max_tokens_field == "max_completion_tokens"


def test_tool_calls_without_ids_get_ids_unique_across_replies():
    body = {
        "choices": [
            {
                "message": {
                    "content": "",
                    "tool_calls": [{"function": {"name": "task_create", "arguments": "{}"}}] * 2,
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    ids = [call.id for _ in range(2) for call in parse(body).tool_calls]
    assert len(set(ids)) == 4 and all(ids)
