"""The Gemini adapter (Gemini CLI's API): the stream asked for by the URL, never a body
field; the same Reply streamed or whole; calls, thinking and usage read from the parts; a
call and its result paired by id and name."""

from __future__ import annotations

import json

from tests.fakes.servers import FakeServer, Response
from vybe.llm.base import Message, Request, ToolCall, ToolSpec
from vybe.llm.gemini import Gemini, parse, payload
from vybe.llm.http import RetryPolicy

REQUEST = Request(
    "be brief",
    (
        Message("user", "run the tests"),
        Message("assistant", "", (ToolCall("c1", "run_shell_command", {"command": "pytest"}),)),
        Message("tool", "3 passed", tool_call_id="c1"),
    ),
    (ToolSpec("run_shell_command", "run a command"),),
    max_tokens=50,
)
PARTS = [{"text": "thinking…", "thought": True}, {"text": "all "}, {"text": "green"}]
USAGE = {"promptTokenCount": 12, "candidatesTokenCount": 3, "cachedContentTokenCount": 4}


def model(url: str, stream: bool = True) -> Gemini:
    policy = RetryPolicy(attempts=2, base_delay=0.01)
    return Gemini(
        "gemini-fake", base_url=url + "/v1beta", api_key="k", stream=stream, policy=policy
    )


def event(parts: list, last: bool = False) -> str:
    candidate: dict = {"content": {"role": "model", "parts": parts}}
    data: dict = {"candidates": [candidate]}
    if last:
        candidate["finishReason"] = "STOP"
        data["usageMetadata"] = USAGE
    return f"data: {json.dumps(data)}\r\n\r\n"


def test_the_request_is_a_system_instruction_turns_of_parts_and_function_declarations():
    body = payload(REQUEST)
    assert body["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    call = body["contents"][1]["parts"][0]["functionCall"]
    assert call == {"id": "c1", "name": "run_shell_command", "args": {"command": "pytest"}}
    result = body["contents"][2]["parts"][0]["functionResponse"]
    assert result == {"id": "c1", "name": "run_shell_command", "response": {"output": "3 passed"}}
    assert body["tools"][0]["functionDeclarations"][0]["name"] == "run_shell_command"
    assert body["generationConfig"] == {"maxOutputTokens": 50} and "stream" not in body


def test_a_reply_is_the_first_candidates_parts_without_its_thinking():
    calls = [{"functionCall": {"name": "read_file", "args": {"path": "a"}}}]
    reply = parse({"candidates": [{"content": {"parts": PARTS + calls}}], "usageMetadata": USAGE})
    assert reply.text == "all green" and reply.stop_reason == "tool_use"
    assert reply.tool_calls == (ToolCall("read_file-0", "read_file", {"path": "a"}),)
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens) == (12, 4)
    cut = parse({"candidates": [{"content": {"parts": PARTS}, "finishReason": "MAX_TOKENS"}]})
    assert cut.stop_reason == "length"


def test_streamed_the_url_asks_for_events_and_the_parts_are_folded():
    events = [event(PARTS[:1]), event(PARTS[1:2]), event(PARTS[2:], last=True)]
    with FakeServer(lambda r: Response(events=events)) as server:
        reply = model(server.url).complete(REQUEST)
    asked = server.posts[0]
    assert asked.path == "/v1beta/models/gemini-fake:streamGenerateContent?alt=sse"
    assert asked.headers["x-goog-api-key"] == "k" and "stream" not in asked.body
    assert reply.text == "all green" and reply.usage.output_tokens == 3


def test_whole_it_posts_generate_content():
    body = {"candidates": [{"content": {"parts": PARTS}, "finishReason": "STOP"}]}
    with FakeServer(lambda r: Response(body=body)) as server:
        reply = model(server.url, stream=False).complete(REQUEST)
    assert server.posts[0].path == "/v1beta/models/gemini-fake:generateContent"
    assert reply.text == "all green"
