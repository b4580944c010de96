"""The Responses adapter (Codex's API): the same Reply streamed or whole, calls and usage
read from the output items, a stream cut before ``response.completed`` retried."""

from __future__ import annotations

from tests.fakes.servers import FakeServer, Response, responses_events, responses_reply, scripted
from vybe.llm.base import Message, Request, ToolCall, ToolSpec
from vybe.llm.http import RetryPolicy
from vybe.llm.responses import OpenAIResponses, payload

REQUEST = Request(
    "be brief",
    (
        Message("user", "run the tests"),
        Message("assistant", "", (ToolCall("call_1", "exec_command", {"cmd": "pytest"}),)),
        Message("tool", "3 passed", tool_call_id="call_1"),
    ),
    (ToolSpec("exec_command", "run a command"),),
    max_tokens=50,
)


def model(url: str, stream: bool = True) -> OpenAIResponses:
    policy = RetryPolicy(attempts=2, base_delay=0.01)
    return OpenAIResponses(
        "gpt-fake", base_url=url + "/v1", api_key="k", stream=stream, policy=policy
    )


def test_the_request_is_instructions_input_items_and_function_tools():
    body = payload("gpt-fake", REQUEST)
    assert body["instructions"] == "be brief"
    assert [i["type"] for i in body["input"]] == [
        "message",
        "function_call",
        "function_call_output",
    ]
    assert body["input"][1]["arguments"] == '{"cmd": "pytest"}'
    assert body["tools"][0] == {
        "type": "function",
        "name": "exec_command",
        "description": "run a command",
        "parameters": {"type": "object"},
    }


def test_a_streamed_and_a_whole_reply_are_the_same_reply():
    answers = [responses_reply("All green.", [("call_2", "exec_command", {"cmd": "ls"})])] * 2
    with FakeServer(scripted(answers)) as server:
        streamed = model(server.url).complete(REQUEST)
        whole = model(server.url, stream=False).complete(REQUEST)
    assert streamed == whole
    assert streamed.text == "All green."
    assert streamed.tool_calls == (ToolCall("call_2", "exec_command", {"cmd": "ls"}),)
    assert streamed.usage is not None and streamed.usage.input_tokens == 10
    assert server.posts[0].path == "/v1/responses" and server.posts[0].body["stream"] is True
    assert server.posts[0].headers["Authorization"] == "Bearer k"


def test_a_stream_cut_before_completed_is_tried_again():
    events = responses_events(responses_reply("whole").body)
    cut = Response(events=events[:-1])
    with FakeServer(scripted([cut, responses_reply("whole")])) as server:
        reply = model(server.url).complete(REQUEST)
    assert reply.text == "whole" and len(server.posts) == 2
