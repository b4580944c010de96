"""``vybe proxy`` and OpenCode: its requests recorded under ``opencode:<its session id>`` (the
id in its headers), its title request relayed unrecorded, its own messages around a
compaction harness input, its compaction answered by a vybe checkpoint in the shape of the
wire it asked on. The shapes are the pinned client's (tests/fixtures/proxy/opencode-*.json,
captured by the opencode-proxy e2e scenario); a test here fails when the pinned version has
none, or when its compaction request is no longer recognised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.brain import serve
from tests.fakes.servers import FakeServer
from tests.proxy.talk import post
from vybe.agent.offline import Consolidator
from vybe.context.protocol import REQUEST_OPEN
from vybe.proxy import compaction, inputs, scaffolding, wire
from vybe.proxy.tee import Tee

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "proxy"
PINNED = json.loads((FIXTURES.parents[2] / "package.json").read_text())["dependencies"]
VERSION = PINNED["opencode-ai"]
MISSION = "Mission: port the parser to Rust. Never touch tests/fixtures/ (a hard constraint)."
SUMMARIZER = "You are a context summarization agent."


def captured(kind: str) -> dict:
    path = FIXTURES / f"opencode-{VERSION}-{kind}.json"
    assert path.exists(), f"no captured {kind} request of opencode {VERSION}: run make e2e"
    return json.loads(path.read_text())


def session_of(request: dict) -> str | None:
    return wire.session_of(wire.api_of(request["path"]) or "", request["headers"], request["body"])


SESSION = "opencode:" + captured("compaction")["headers"]["x-session-id"]


def test_the_pinned_opencodes_requests_name_its_session_and_its_title_request_none():
    for kind in ("compaction", "recompaction", "continued"):
        assert session_of(captured(kind)) == SESSION
    assert session_of(captured("title")) is None  # relayed, never a turn of the session
    other = {**captured("continued"), "headers": {"user-agent": "curl/8"}}
    assert session_of(other).startswith("proxy:")


def test_the_pinned_opencodes_compaction_is_recognised_and_a_changed_one_is_not():
    for kind in ("compaction", "recompaction"):
        asked = captured(kind)
        assert compaction.client_of(wire.CHAT, asked["path"], asked["body"]) == "opencode"
        assert compaction.without_prompt("opencode", asked["body"])["messages"] == []
    asked = captured("compaction")
    changed = json.loads(json.dumps(asked["body"]).replace("Do not mention", "Never mention"))
    assert compaction.client_of(wire.CHAT, asked["path"], changed) is None
    other = json.loads(json.dumps(asked["body"]).replace(SUMMARIZER, "You are a summarizer."))
    assert compaction.client_of(wire.CHAT, asked["path"], other) is None
    for kind in ("continued", "title"):
        turn = captured(kind)
        assert compaction.client_of(wire.CHAT, turn["path"], turn["body"]) is None


def test_its_compaction_on_the_anthropic_wire_is_recognised_too():
    messages = captured("compaction")["body"]["messages"]
    body = {"model": "claude-x", "system": [{"type": "text", "text": messages[0]["content"]}]}
    body["messages"] = [
        {"role": "user", "content": [{"type": "text", "text": messages[1]["content"]}]}
    ]
    assert compaction.client_of(wire.ANTHROPIC, "/v1/messages", body) == "opencode"


def test_its_own_messages_around_a_compaction_are_harness_input_never_typed():
    turn = captured("continued")["body"]
    items = inputs.items_of(wire.CHAT, turn)
    assert [i.text for i in items if i.kind == "user"] == [
        "list the tokens [[long: 400]]",
        "check the errors [[long: 400]]",
    ]
    assert [i.label for i in items if i.kind == "harness"] == [
        scaffolding.OPENCODE_LABELS["ask"],
        scaffolding.OPENCODE_LABELS["continue"],
    ]
    typed = {"messages": [{"role": "user", "content": scaffolding.OPENCODE_ASK}]}
    assert [i.kind for i in inputs.items_of(wire.CHAT, typed)] == ["user"]  # no summary after


@pytest.fixture
def upstream():
    with FakeServer(serve(Consolidator(), "openai")) as server:
        yield server


def begun(recorded, upstream):
    """A proxy that relayed the session's first turn as OpenCode sends it (its system
    prompt, the Mission) and recorded it."""
    proxy = recorded(upstream.url)
    turn = captured("continued")
    system = turn["body"]["messages"][0]
    body = {**turn["body"], "messages": [system, {"role": "user", "content": MISSION}]}
    post(proxy.url, turn["path"], body, turn["headers"])[1].read()
    proxy.rows(SESSION, 2)
    return proxy


def test_its_compaction_is_answered_by_a_streamed_checkpoint_naming_its_session(recorded, upstream):
    proxy = begun(recorded, upstream)
    asked = captured("compaction")
    _, response = post(proxy.url, asked["path"], asked["body"], asked["headers"], timeout=60)
    assert response.getheader("Content-Type") == "text/event-stream"
    tee = Tee(wire.CHAT)
    tee.piece(response.read())
    text = tee.result(None)[0].text
    assert text.startswith(f"vybe checkpoint of session {SESSION}, taken from its record.")
    assert f"- {MISSION}" in text and f"\n{MISSION}\n</user-message>" in text
    assert any(REQUEST_OPEN in json.dumps(p.body) for p in upstream.posts)
    assert not any(SUMMARIZER in json.dumps(p.body) for p in upstream.posts)
    after = captured("continued")
    after["body"]["messages"][2] = {"role": "assistant", "content": text}
    post(proxy.url, after["path"], after["body"], after["headers"])[1].read()
    rows = proxy.rows(SESSION, 4)
    assert [r.text for r in rows if r.type == "user"] == [MISSION]
    harness = [r.text for r in rows if r.type == "harness"]
    assert len(harness) == 1 and scaffolding.OPENCODE_CONTINUE in harness[0]
    assert [r.type for r in rows].count("assistant") == 2  # its turn, the one after; no summary


def test_its_title_request_is_relayed_and_records_nothing(recorded, upstream):
    proxy = recorded(upstream.url)
    title = captured("title")
    post(proxy.url, title["path"], title["body"], title["headers"])[1].read()
    assert len(upstream.posts) == 1 and upstream.posts[0].body == title["body"]
    unnamed = wire.session_of(wire.CHAT, {}, title["body"])  # its name were it any client's
    assert proxy.writer.flush() and proxy.record.messages(SESSION) == []
    assert proxy.record.messages(unnamed) == []


def test_a_changed_compaction_request_goes_upstream_untouched(recorded, upstream):
    proxy = begun(recorded, upstream)
    asked = captured("compaction")
    changed = json.loads(json.dumps(asked["body"]).replace("Do not mention", "Never mention"))
    post(proxy.url, asked["path"], changed, asked["headers"], timeout=60)[1].read()
    assert upstream.posts[-1].body == changed
    assert not any(REQUEST_OPEN in json.dumps(p.body) for p in upstream.posts)
    rows = proxy.rows(SESSION, 2)
    assert [r.type for r in rows] == ["user", "assistant"]  # the older turns never typed
