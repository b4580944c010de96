"""The client's compaction request is answered with a vybe checkpoint of the session's
record, run against the same upstream with the client's credentials, in the shape the
client reads (streamed events); a request it does not recognise, or a checkpoint that
failed, goes upstream as it came.

The shapes are the pinned clients' (their real requests: tests/fixtures/proxy/):
Claude Code 2.1.197 appends its instructions as the last text block of the last user
message, ending with ``REMINDER``; Codex 0.171 marks the request in
``client_metadata["x-codex-turn-metadata"]`` and ends its input with its compaction prompt.
"""

from __future__ import annotations

import gc
import json
import os
import time
from pathlib import Path

import pytest

from tests.fakes.brain import serve
from tests.fakes.servers import FakeServer, Received, Response, anthropic_reply
from tests.proxy.talk import post
from tests.proxy.test_record import CLAUDE, HEADERS, claude_body, said, user
from vybe.agent.offline import Consolidator
from vybe.context.protocol import REQUEST_OPEN
from vybe.proxy import compaction, wire
from vybe.proxy import upstream as upstreams
from vybe.proxy.tee import Tee

MISSION = "Mission: port the parser to Rust. Never touch tests/fixtures/."
# The end of Claude Code 2.1.197's compaction instructions, as it sent them (e2e claude-proxy).
INSTRUCTIONS = (
    "Your task is to create a detailed summary of the conversation so far.\n\n\n"
    + compaction.REMINDER
    + " Tool calls will be rejected and you will fail the task."
)
CODEX_PROMPT = (
    "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another"
    " LLM that will resume the task."
)
TURN = json.dumps({"request_kind": "compaction", "compaction": {"trigger": "auto"}})


def claude_history(turns: int) -> list[dict]:
    messages = [user(MISSION), said("Starting with the lexer.")]
    for n in range(turns):
        messages += [user(f"filler step {n}: keep going"), said(f"Step {n} done.")]
    return messages


def codex_input(text: str, role: str = "user") -> dict:
    kind = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def codex_history(turns: int) -> list[dict]:
    items = [codex_input(MISSION), codex_input("Starting with the lexer.", "assistant")]
    for n in range(turns):
        items += [codex_input(f"filler step {n}"), codex_input(f"Step {n} done.", "assistant")]
    return items


def text_of(api: str, data: bytes) -> str:
    tee = Tee(api)
    tee.piece(data)
    reply, cut = tee.result(None)
    assert cut is None
    return reply.text


def test_each_pinned_clients_compaction_request_is_recognised_and_others_are_not():
    claude = {"messages": [*claude_history(1), user("/compact", INSTRUCTIONS)]}
    assert compaction.client_of(wire.ANTHROPIC, "/v1/messages?beta=true", claude) == "claude"
    changed = {"messages": [*claude_history(1), user(INSTRUCTIONS.replace("Do NOT", "Never"))]}
    assert compaction.client_of(wire.ANTHROPIC, "/v1/messages", changed) is None
    assert compaction.client_of(wire.ANTHROPIC, "/v1/messages/count_tokens", claude) is None
    marked = {"client_metadata": {"x-codex-turn-metadata": TURN}, "input": codex_history(1)}
    assert compaction.client_of(wire.RESPONSES, "/v1/responses", marked) == "codex"
    prompted = {"input": [*codex_history(1), codex_input(CODEX_PROMPT)]}
    assert compaction.client_of(wire.RESPONSES, "/v1/responses", prompted) == "codex"
    plain = {"input": codex_history(2), "client_metadata": {"x-codex-turn-metadata": "{"}}
    assert compaction.client_of(wire.RESPONSES, "/v1/responses", plain) is None


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "proxy"
PINNED = json.loads((FIXTURES.parents[2] / "package.json").read_text())["dependencies"]
CLIENTS = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex"}


def real_request(client: str) -> dict:
    """The pinned version's own compaction request (tests/fixtures/proxy/README.md)."""
    found = sorted(FIXTURES.glob(f"{client}-{PINNED[CLIENTS[client]]}-*.json"))
    assert found, f"no captured compaction request of {client} {PINNED[CLIENTS[client]]}"
    return json.loads(found[0].read_text())


@pytest.mark.parametrize(("client", "api"), [("claude", wire.ANTHROPIC), ("codex", wire.RESPONSES)])
def test_the_pinned_clients_real_compaction_request_is_recognised(client, api):
    captured = real_request(client)
    assert compaction.client_of(api, captured["path"], captured["body"]) == client
    rest = compaction.without_prompt(client, captured["body"])
    assert "CONTEXT CHECKPOINT" not in json.dumps(rest) and "REMINDER: Do NOT" not in json.dumps(
        rest
    )


def run_claude(proxy, turns: int) -> None:
    history = claude_history(turns)
    for end in range(1, len(history), 2):
        post(proxy.url, "/v1/messages", claude_body(history[:end]), HEADERS)[1].read()


def test_claude_codes_compact_is_answered_with_the_checkpoint_inside_its_summary(recorded):
    brain = Consolidator()
    with FakeServer(serve(brain, "anthropic")) as upstream:
        proxy = recorded(upstream.url)
        run_claude(proxy, 3)
        proxy.rows(f"claude:{CLAUDE}", 8)
        body = claude_body([*claude_history(3), user(INSTRUCTIONS)])
        _, response = post(proxy.url, "/v1/messages?beta=true", body, HEADERS)
        assert response.getheader("Content-Type") == "text/event-stream"
        text = text_of(wire.ANTHROPIC, response.read())
        rows = proxy.rows(f"claude:{CLAUDE}", 8)
    summary = text.split("<summary>", 1)[1].split("</summary>", 1)[0]
    assert text.startswith("<analysis>") and "## Mission" in summary
    assert f"- {MISSION}" in summary  # the Mission entry, word for word
    assert f'<user-message number="1">\n{MISSION}\n</user-message>' in summary
    assert "# 6. Now" in summary and f"--session-id claude:{CLAUDE}" in summary
    turns = [p for p in upstream.posts if REQUEST_OPEN in json.dumps(p.body)]
    assert turns and all(p.headers["x-api-key"] == HEADERS["x-api-key"] for p in turns)
    assert not any(compaction.REMINDER in json.dumps(p.body) for p in upstream.posts)
    typed = [r.text for r in rows if r.type == "user"]
    assert typed == [MISSION, *(f"filler step {n}: keep going" for n in range(3))]


def test_codexs_compaction_is_answered_as_a_streamed_response_with_the_checkpoint(recorded):
    with FakeServer(serve(Consolidator(), "responses")) as upstream:
        proxy = recorded(upstream.url)
        history = codex_history(3)
        auth = {"authorization": "Bearer sk-codex-secret"}
        for end in range(1, len(history), 2):
            body = {"model": "gpt-fake", "stream": True, "input": history[:end]}
            post(proxy.url, "/v1/responses", {**body, "prompt_cache_key": "t-1"}, auth)[1].read()
        proxy.rows("codex:t-1", 8)
        asked = {
            "model": "gpt-fake",
            "stream": True,
            "prompt_cache_key": "t-1",
            "client_metadata": {"session_id": "t-1", "x-codex-turn-metadata": TURN},
            "input": [*history, codex_input(CODEX_PROMPT)],
        }
        _, response = post(proxy.url, "/v1/responses", asked, auth)
        text = text_of(wire.RESPONSES, response.read())
    assert f"- {MISSION}" in text and f'<user-message number="1">\n{MISSION}\n' in text
    turns = [p for p in upstream.posts if REQUEST_OPEN in json.dumps(p.body)]
    assert turns and turns[0].path == "/v1/responses"
    assert turns[0].headers["authorization"] == "Bearer sk-codex-secret"


def test_a_compaction_whose_checkpoint_fails_goes_upstream_as_it_came(recorded):
    def respond(received: Received) -> Response:
        if REQUEST_OPEN in json.dumps(received.body):
            return Response(400, {"type": "error", "error": {"type": "invalid_request_error"}})
        return anthropic_reply("the client's own summary")

    with FakeServer(respond) as upstream:
        proxy = recorded(upstream.url)
        run_claude(proxy, 2)
        proxy.rows(f"claude:{CLAUDE}", 6)
        body = claude_body([*claude_history(2), user(INSTRUCTIONS)], stream=False)
        _, response = post(proxy.url, "/v1/messages", body, HEADERS)
        answer = json.loads(response.read())
    assert answer["content"][0]["text"] == "the client's own summary"
    assert upstream.posts[-1].body == body


def test_a_changed_compaction_prompt_is_relayed_untouched(recorded):
    with FakeServer(serve(Consolidator(), "anthropic")) as upstream:
        proxy = recorded(upstream.url)
        run_claude(proxy, 2)
        changed = INSTRUCTIONS.replace("REMINDER:", "NOTE:")
        body = claude_body([*claude_history(2), user(changed)], stream=False)
        post(proxy.url, "/v1/messages", body, HEADERS)[1].read()
    assert upstream.posts[-1].body == body
    assert not any(REQUEST_OPEN in json.dumps(p.body) for p in upstream.posts)


def settled_open_files() -> int:
    """This process's open files once their count holds still for a fifth of a second (a
    handler thread closes its socket just after its client left), or after five seconds."""
    deadline = time.monotonic() + 5
    count = -1
    while (now := len(os.listdir("/proc/self/fd"))) != count and time.monotonic() < deadline:
        count = now
        time.sleep(0.2)
    return now


def test_the_checkpoint_turns_leave_no_connection_to_a_keep_alive_upstream_open(recorded):
    """A long-running proxy closes each checkpoint turn's connection itself: twenty
    compactions against an upstream that keeps connections open, as the real APIs do, and
    answers whole (a stream, left at its last event, is closed anyway) leave the
    process's open files as they were, the garbage collector kept out of it."""

    def compact(proxy, body) -> None:
        conn, response = post(proxy.url, "/v1/messages", body, HEADERS)
        response.read()
        conn.close()

    brain = serve(Consolidator(), "anthropic")
    with FakeServer(brain, streams=False, keep_alive=True) as upstream:
        proxy = recorded(upstream.url)
        run_claude(proxy, 2)
        proxy.rows(f"claude:{CLAUDE}", 6)
        body = claude_body([*claude_history(2), user(INSTRUCTIONS)])
        gc.disable()
        try:
            compact(proxy, body)  # the record and the session's state are open from here on
            before = settled_open_files()
            for _ in range(20):
                compact(proxy, body)
            after = settled_open_files()
        finally:
            gc.enable()
        turns = [p for p in upstream.posts if REQUEST_OPEN in json.dumps(p.body)]
    assert len(turns) >= 21
    assert after == before


def test_the_checkpoint_turn_sends_the_clients_own_login_and_no_empty_key():

    headers = {
        "Authorization": "Bearer oauth-token",
        "anthropic-beta": "oauth-2025",
        "x-app": "cli",
    }
    model = upstreams.model_for(wire.ANTHROPIC, "http://127.0.0.1:9/v1", "claude-x", headers)
    sent = model.transport.client.headers
    assert sent["authorization"] == "Bearer oauth-token" and sent["anthropic-beta"] == "oauth-2025"
    assert "x-api-key" not in sent and "x-app" not in sent
