"""``vybe proxy`` on the Gemini wire (Gemini CLI): ``generateContent`` and
``streamGenerateContent?alt=sse`` recorded under ``gemini:<id>`` (the hash of the first typed
prompt: the client sends no session id), its own context harness input, its side requests
(a JSON answer asked for) relayed unrecorded, the stream passed on as it arrives, errors in
Gemini's shape; its compression answered by a vybe checkpoint, and the check of the summary
it asks for next by the same. The shapes are the pinned client's
(tests/fixtures/proxy/gemini-*.json)."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from tests.fakes.brain import serve
from tests.fakes.servers import FakeServer, Response
from tests.proxy.talk import post
from vybe.agent.offline import Consolidator
from vybe.context.protocol import REQUEST_OPEN
from vybe.proxy import compaction, inputs, wire

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "proxy"
PINNED = json.loads((FIXTURES.parents[2] / "package.json").read_text())["dependencies"]
VERSION = PINNED["@google/gemini-cli"]
MISSION = "Mission: port the parser to Rust. Never touch tests/fixtures/ (a hard constraint)."
SESSION = "gemini:" + hashlib.sha256(MISSION.encode()).hexdigest()[:24]


def captured(kind: str) -> dict:
    path = FIXTURES / f"gemini-{VERSION}-{kind}.json"
    assert path.exists(), f"no captured {kind} request of gemini-cli {VERSION}: run make e2e"
    return json.loads(path.read_text())


def gemini_event(text: str, last: bool = False) -> str:
    candidate: dict = {"content": {"role": "model", "parts": [{"text": text}]}}
    if last:
        candidate["finishReason"] = "STOP"
    return f"data: {json.dumps({'candidates': [candidate]})}\r\n\r\n"


def test_the_pinned_gemini_clis_turn_is_read_as_its_typed_prompts_and_its_context():
    turn = captured("turn")
    assert wire.api_of(turn["path"]) == wire.GEMINI and wire.is_generation(turn["path"])
    assert wire.session_of(wire.GEMINI, {}, turn["body"]) == SESSION
    items = inputs.items_of(wire.GEMINI, turn["body"])
    assert [i.text for i in items if i.kind == "user"] == [
        MISSION,
        "read the lexer",
        "list the tokens",
        "check the error paths",
        "what is the mission?",
    ]
    assert [i.label for i in items if i.kind == "harness"] == ["session context"]
    assert [i.kind for i in inputs.tail_of(wire.GEMINI, turn["body"])] == ["assistant", "user"]


def test_its_side_requests_asking_for_json_are_no_turn_of_the_session():
    side = captured("side")
    assert wire.session_of(wire.GEMINI, {}, side["body"]) is None
    assert not wire.is_generation("/v1beta/models/gemini-fake:countTokens")


def test_a_streamed_turn_reaches_the_client_as_it_arrives_and_the_record_holds_it_whole(
    recorded,
):
    pieces = [gemini_event("reply "), gemini_event("to "), gemini_event("you", last=True)]
    with FakeServer(lambda r: Response(events=pieces, gap=0.3)) as upstream:
        proxy = recorded(upstream.url)
        turn = captured("turn")
        started = time.monotonic()
        _, response = post(proxy.url, turn["path"], turn["body"], {"x-goog-api-key": "k"})
        first = response.read1()
        arrived = time.monotonic() - started
        rest = response.read()
        whole = time.monotonic() - started
        rows = proxy.rows(SESSION, 11)
    assert first.startswith(b"data: ") and b"you" not in first and b"you" in rest
    assert arrived < whole - 0.2  # the first piece came before the last was sent
    assert upstream.posts[0].path == turn["path"]
    assert upstream.posts[0].headers["x-goog-api-key"] == "k"
    assert [r.text for r in rows if r.type == "assistant"][-1] == "reply to you"
    assert [r.text for r in rows if r.type == "user"][-1] == "what is the mission?"


def test_an_unreachable_upstream_is_a_502_in_geminis_error_shape(recorded):
    proxy = recorded("http://127.0.0.1:9")
    turn = captured("turn")
    _, response = post(proxy.url, turn["path"], turn["body"])
    error = json.loads(response.read())["error"]
    assert response.status == 502 and error["code"] == 502 and error["status"] == "UNAVAILABLE"


def test_the_pinned_gemini_clis_compression_and_its_check_are_recognised_and_others_not():
    for kind in ("compress", "verify"):
        asked = captured(kind)
        assert compaction.client_of(wire.GEMINI, asked["path"], asked["body"]) == "gemini"
        assert wire.session_of(wire.GEMINI, {}, asked["body"]) == SESSION
        rest = compaction.without_prompt("gemini", asked["body"])
        assert "<state_snapshot>" not in json.dumps(rest["contents"])
    body = captured("compress")["body"]
    changed = json.loads(json.dumps(body).replace("First, reason in", "Reason in"))
    assert compaction.client_of(wire.GEMINI, captured("compress")["path"], changed) is None
    assert (
        compaction.client_of(wire.GEMINI, captured("turn")["path"], captured("turn")["body"])
        is None
    )


def test_its_compression_is_a_checkpoint_its_check_gets_the_same_and_the_session_keeps_its_name(
    recorded,
):
    with FakeServer(serve(Consolidator(), "gemini")) as upstream:
        proxy = recorded(upstream.url)
        turn = captured("turn")
        post(proxy.url, turn["path"], turn["body"], {"x-goog-api-key": "k"})[1].read()
        proxy.rows(SESSION, 10)
        asked = captured("compress")
        _, response = post(proxy.url, asked["path"], asked["body"], {"x-goog-api-key": "k"}, 60)
        text = json.loads(response.read())["candidates"][0]["content"]["parts"][0]["text"]
        turns = len(upstream.posts)
        check = captured("verify")
        check["body"]["contents"][-2] = {"role": "model", "parts": [{"text": text}]}
        _, again = post(proxy.url, check["path"], check["body"], {"x-goog-api-key": "k"}, 60)
        repeated = json.loads(again.read())["candidates"][0]["content"]["parts"][0]["text"]
    assert text.startswith(f"vybe checkpoint of session {SESSION}, taken from its record.")
    assert f"- {MISSION}" in text and f"\n{MISSION}\n</user-message>" in text
    checkpoint_turns = [p for p in upstream.posts if REQUEST_OPEN in json.dumps(p.body)]
    assert checkpoint_turns and checkpoint_turns[0].headers["x-goog-api-key"] == "k"
    assert ":generateContent" in checkpoint_turns[0].path or "alt=sse" in checkpoint_turns[0].path
    assert not any(compaction.GEMINI_SYSTEM in json.dumps(p.body) for p in upstream.posts)
    assert repeated == text and len(upstream.posts) == turns
    kept = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    assert wire.session_of(wire.GEMINI, {}, kept) == SESSION
    assert [i.label for i in inputs.items_of(wire.GEMINI, kept)] == ["compaction summary"]


HOOKED = "gemini:46d28e3e-4b32-4dd4-8c11-d17e93833c97"  # vybe's hooks' name: its session id


def hooked_turn() -> dict:
    """The pinned client's turn as it is sent with vybe's hooks installed: the brief they
    gave with the first prompt beside it, as Gemini CLI adds a hook's context."""
    body = json.loads(json.dumps(captured("turn")["body"]))
    first = next(c for c in body["contents"] if {"text": MISSION} in c["parts"])
    brief = f"== VYBE (task tracker) ==\nNo task assigned.\n\nvybe session {HOOKED}"
    first["parts"].append({"text": f"<hook_context>{brief}</hook_context>"})
    return body


def test_a_turn_with_vybes_hooks_is_named_as_the_hooks_name_it_and_their_context_is_no_prompt():
    body = hooked_turn()
    assert wire.session_of(wire.GEMINI, {}, body) == HOOKED
    items = inputs.items_of(wire.GEMINI, body)
    assert next(i.text for i in items if i.kind == "user") == MISSION
    assert [i.label for i in items if i.kind == "harness"] == ["session context", "hook context"]


def test_a_session_line_the_person_typed_names_no_session():
    body = captured("turn")["body"]
    typed = json.loads(json.dumps(body))
    typed["contents"][0]["parts"][1]["text"] = f"{MISSION}\nvybe session {HOOKED}"
    assert wire.session_of(wire.GEMINI, {}, typed) != HOOKED


def test_the_checkpoint_of_a_hooked_session_keeps_its_name_after_the_compression():
    text = f"vybe checkpoint of session {HOOKED}, taken from its record.\n- {MISSION}"
    kept = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    assert wire.session_of(wire.GEMINI, {}, kept) == HOOKED


def test_a_tool_results_config_json_keeps_no_password_in_the_record(recorded):
    """A functionResponse's output holding a config file's JSON reaches the record as JSON
    inside JSON (its quotes escaped): the password in it is redacted all the same."""
    secret = "JyjW4hyrS23pt5aZaRTb"
    turn = captured("turn")
    body = json.loads(json.dumps(turn["body"]))
    call = {"functionCall": {"name": "read_file", "args": {"path": "config.json"}}}
    output = f'config {{"DB_PASSWORD": "{secret}", "host": "db.internal"}}'
    result = {"functionResponse": {"name": "read_file", "response": {"output": output}}}
    body["contents"][-1:-1] = [
        {"role": "model", "parts": [call]},
        {"role": "user", "parts": [result]},
    ]
    with FakeServer(lambda r: Response(events=[gemini_event("done", last=True)])) as upstream:
        proxy = recorded(upstream.url)
        post(proxy.url, turn["path"], body, {"x-goog-api-key": "k"})[1].read()
        rows = proxy.rows(SESSION, 12)
    tools = [r.text for r in rows if r.type == "tool"]
    assert any("db.internal" in t and "[REDACTED:" in t for t in tools), tools
    assert secret in json.dumps(upstream.posts[0].body)  # the model still got it
    assert secret not in repr(rows)
