"""Rewrite mode as a client library drives it: the OpenAI Python SDK, pointed at vybe proxy's
base URL, streaming and not, over a session that outgrows the window many
times; and a session of 10,000 messages of real shape that meets the proxy already long."""

from __future__ import annotations

import json

import openai

from tests.fakes.brain import PARSERS, serve
from tests.fakes.servers import FakeServer
from tests.proxy.talk import post
from vybe.agent.offline import Consolidator
from vybe.context.budget import request_tokens
from vybe.context.protocol import RECOLLECTION_OPEN, REQUEST_OPEN
from vybe.proxy.rewrite import Rewriter

WINDOW = 16_000
KEY = "sk-test-never-recorded-0123456789"
MISSION = "Mission: port the exporter to the new API. Never edit vendor/legacy.py."
PASTE = "a build log line with nothing in it to keep. " * 80  # about 900 tokens
TOOL = {
    "type": "function",
    "function": {
        "name": "read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    },
}


def client(proxy) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=proxy.url + "/v1",
        api_key=KEY,
        default_headers={"x-vybe-session": "sdk"},
        max_retries=0,
    )


def streamed(sdk: openai.OpenAI, history: list[dict]) -> tuple[str, int]:
    """The text of a streamed reply, and how many chunks it came in."""
    stream = sdk.chat.completions.create(
        model="local-model", messages=history, tools=[TOOL], stream=True, max_tokens=400
    )
    chunks = [c for c in stream if c.choices]
    return "".join(c.choices[0].delta.content or "" for c in chunks), len(chunks)


def test_the_openai_sdk_drives_rewrite_mode_streaming_and_not_within_the_window(recorded):
    brain = Consolidator()
    with FakeServer(serve(brain, "openai")) as upstream:
        proxy = recorded(upstream.url, Rewriter(WINDOW))
        sdk = client(proxy)
        history: list[dict] = [{"role": "system", "content": "You port code carefully."}]
        pieces = []
        for n in range(40):
            history.append({"role": "user", "content": MISSION if n == 0 else f"{n}: {PASTE}"})
            if n % 2:
                text, count = streamed(sdk, history)
                pieces.append(count)
            else:
                reply = sdk.chat.completions.create(
                    model="local-model", messages=history, tools=[TOOL], max_tokens=400
                )
                text = reply.choices[0].message.content or ""
            history.append({"role": "assistant", "content": text})
        rows = proxy.rows("proxy:sdk", 80)
    sent = [p.body for p in upstream.posts]
    normal = [b for b in sent if REQUEST_OPEN not in json.dumps(b)]
    assert len(json.dumps(history)) // 4 > 2 * WINDOW
    assert len(normal) == 40 and len(sent) > 40  # checkpoint turns ran upstream too
    assert all(len(json.dumps(b["messages"])) // 4 < WINDOW for b in normal)
    assert MISSION in json.dumps(normal[-1]) and RECOLLECTION_OPEN in json.dumps(normal[-1])
    assert min(pieces) > 1  # streamed replies reached the SDK in pieces
    typed = [r.text for r in rows if r.type == "user"]
    assert typed[0] == MISSION and len(typed) == 40 == len(set(typed))
    assert KEY not in json.dumps([r.text for r in rows] + [r.data for r in rows])


def long_history(messages: int) -> list[dict]:
    """A coding session of real shape: a prompt, then tool rounds (call, result, reply)."""
    history: list[dict] = [{"role": "system", "content": "You port code carefully."}]
    history.append({"role": "user", "content": MISSION})
    n = 0
    while len(history) < messages:
        n += 1
        call = {"id": f"call_{n}", "type": "function"}
        call["function"] = {"name": "read", "arguments": json.dumps({"path": f"src/m{n}.py"})}
        history.append({"role": "assistant", "content": None, "tool_calls": [call]})
        history.append({"role": "tool", "tool_call_id": f"call_{n}", "content": f"line {n}"})
        history.append({"role": "assistant", "content": f"m{n}.py read."})
        if n % 10 == 0:
            history.append({"role": "user", "content": f"go on with module {n}"})
    return history[:messages]


def test_a_session_of_ten_thousand_messages_is_recorded_once_and_sent_within_the_window(
    recorded,
):
    brain = Consolidator()
    history = long_history(10_000)
    with FakeServer(serve(brain, "openai")) as upstream:
        proxy = recorded(upstream.url, Rewriter(WINDOW))
        for n in range(3):
            history.append({"role": "user", "content": f"now step {n}"})
            body = {"model": "local-model", "messages": history, "max_tokens": 400}
            # The first request records 10,000 messages and checkpoints them before it is
            # relayed: seconds, more on a loaded machine.
            sent = post(proxy.url, "/v1/chat/completions", body, {"x-vybe-session": "l"}, 300)
            response = sent[1]
            assert response.status == 200
            answer = json.loads(response.read())["choices"][0]["message"]["content"]
            history.append({"role": "assistant", "content": answer})
        rows = proxy.rows("proxy:l", len(history) - 1)
    normal = [p.body for p in upstream.posts if REQUEST_OPEN not in json.dumps(p.body)]
    assert len(normal) == 3
    # Counted as the engine counts (text, each call's name and arguments): the JSON framing
    # of thousands of tool calls is no text a model reads.
    assert all(request_tokens(PARSERS["openai"](b)) < WINDOW for b in normal)
    assert MISSION in json.dumps(normal[-1])
    assert len(rows) == len(history) - 1  # every message but the system prompt, once
