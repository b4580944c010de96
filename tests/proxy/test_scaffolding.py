"""A client's fixed scaffolding is harness input, never the person's words, and its session
is named by its client: Aider's worked examples, repository map, file listings, edit notes
and summary of older history, read from the pinned Aider's real requests
(tests/fixtures/proxy/aider-<version>-*.json, captured through ``vybe proxy`` and straight
to the e2e suite's fake server), and its weak model's summary request answered by a vybe
checkpoint that names the session."""

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

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "proxy"
PIN = (FIXTURES.parents[2] / "e2e" / "python-clients.txt").read_text()
VERSION = next(line.split("==")[1] for line in PIN.split() if line.startswith("aider-chat=="))
MISSION = "Mission: port the parser to Rust. Never touch tests/fixtures/ (a hard constraint)."
PATH = "/v1/chat/completions"


def captured(kind: str) -> dict:
    """The pinned Aider's own request (``first``, ``edited`` or ``summary``)."""
    path = FIXTURES / f"aider-{VERSION}-{kind}.json"
    assert path.exists(), f"no captured {kind} request of aider {VERSION}: run make e2e"
    return json.loads(path.read_text())["body"]


def typed(body: dict) -> list[str]:
    return [i.text for i in inputs.items_of(wire.CHAT, body) if i.kind == "user"]


def test_the_pinned_aiders_first_request_holds_one_typed_prompt_and_its_scaffolding():
    items = inputs.items_of(wire.CHAT, captured("first"))
    assert [i.text for i in items if i.kind == "user"] == [MISSION]  # its reminder left off
    assert [i.label for i in items if i.kind == "harness"] == [
        scaffolding.EXAMPLES,
        "aider repository map",
        "aider files",
    ]
    assert not any(i.kind == "assistant" for i in items)  # its canned replies are none
    assert "Change the greeting" in items[0].text


def test_aiders_edit_notes_and_canned_replies_are_not_the_persons_words():
    body = captured("edited")
    items = inputs.items_of(wire.CHAT, body)
    assert typed(body) == [
        MISSION,
        "read the lexer [[long: 400]]",
        "list the tokens [[long: 400]]",
        "check the error paths [[long: 400]]",
        "tidy it [[edit: hello.py]]",
        "what is the mission?",
    ]
    notes = [i.text for i in items if i.label == "aider edit note"]
    assert notes == ["I updated the files."]
    assert [i.text for i in items if i.kind == "assistant" and i.text.startswith("Ok")] == []


def test_the_output_of_commands_aider_ran_is_harness_input_and_its_ok_no_reply():
    body = captured("edited")
    ran = "Output from cat hello.py\ndef hello():\n    print('hi')\n\n\n"
    messages = body["messages"]
    body = {**body, "messages": [*messages[:17], user_said(ran), said_ok(), *messages[17:]]}
    items = inputs.items_of(wire.CHAT, body)
    assert [i.text for i in items if i.label == scaffolding.COMMAND_LABEL] == [ran]
    assert ran not in typed(body) and "Ok" not in [i.text for i in items]
    typed_so = {**body, "messages": [*messages[:17], user_said(ran), *messages[17:]]}
    assert ran in typed(typed_so)  # not answered by its canned "Ok": the person's words


def user_said(text: str) -> dict:
    return {"role": "user", "content": text}


def said_ok() -> dict:
    return {"role": "assistant", "content": scaffolding.COMMAND_ACK}


def test_every_request_of_an_aider_session_names_one_aider_session():
    named = {
        wire.session_of(wire.CHAT, {}, captured(kind)) for kind in ("first", "edited", "summary")
    }
    assert len(named) == 1 and next(iter(named)).startswith("aider:")


def test_a_history_aider_summarised_with_vybes_checkpoint_keeps_the_session_it_names():
    body = captured("edited")
    session = wire.session_of(wire.CHAT, {}, body)
    summary = f"{scaffolding.SUMMARY}vybe checkpoint of session {session}, taken from its record."
    messages = body["messages"]
    later = {
        **body,
        "messages": [*messages[:7], {"role": "user", "content": summary}, *messages[-5:]],
    }
    assert wire.session_of(wire.CHAT, {}, later) == session
    items = inputs.items_of(wire.CHAT, later)
    assert [i.label for i in items if i.text == summary] == [scaffolding.SUMMARY_LABEL]
    assert typed(later) == ["what is the mission?"]


def test_a_chat_request_of_no_known_client_keeps_its_proxy_name_and_every_user_message():
    body = {"messages": [{"role": "user", "content": "Ok."}, {"role": "user", "content": "hi"}]}
    assert wire.session_of(wire.CHAT, {}, body).startswith("proxy:")
    assert typed(body) == ["Ok.", "hi"]


def test_the_pinned_aiders_summary_request_is_recognised_and_a_changed_one_is_not():
    body = captured("summary")
    assert compaction.client_of(wire.CHAT, PATH, body) == "aider"
    system = body["messages"][0]["content"].replace("*Briefly*", "Briefly")
    changed = {**body, "messages": [{"role": "system", "content": system}, body["messages"][1]]}
    assert compaction.client_of(wire.CHAT, PATH, changed) is None
    assert compaction.client_of(wire.CHAT, PATH, captured("first")) is None


@pytest.fixture
def upstream():
    with FakeServer(serve(Consolidator(), "openai")) as server:
        yield server


def test_through_the_proxy_aiders_turns_are_recorded_under_its_name_scaffolding_as_harness(
    recorded, upstream
):
    proxy = recorded(upstream.url)
    first, edited = captured("first"), captured("edited")
    post(proxy.url, PATH, first)[1].read()
    session = wire.session_of(wire.CHAT, {}, first)
    proxy.rows(session, 5)
    post(proxy.url, PATH, edited)[1].read()
    rows = proxy.rows(session, 9)
    assert [r.text for r in rows if r.type == "user"] == [MISSION, "what is the mission?"]
    harness = [r.text for r in rows if r.type == "harness"]
    assert len(harness) == 5 and sum("Change the greeting" in t for t in harness) == 1
    assert sum("repository map" in t for t in harness) == 1  # resent each turn, recorded once


def test_aiders_summary_request_is_answered_by_a_checkpoint_that_names_its_session(
    recorded, upstream
):
    proxy = recorded(upstream.url)
    first = captured("first")
    session = wire.session_of(wire.CHAT, {}, first)
    post(proxy.url, PATH, first)[1].read()
    proxy.rows(session, 5)
    _, response = post(proxy.url, PATH, captured("summary"), timeout=60)
    reply = json.loads(response.read())
    text = reply["choices"][0]["message"]["content"]
    assert text.startswith(f"vybe checkpoint of session {session}, taken from its record.")
    assert f"- {MISSION}" in text and f"\n{MISSION}\n</user-message>" in text
    assert any(REQUEST_OPEN in json.dumps(p.body) for p in upstream.posts)
    assert not any(scaffolding.SUMMARIZE in json.dumps(p.body) for p in upstream.posts)
    assert [r.type for r in proxy.rows(session, 5)].count("assistant") == 1  # no summary row


def test_aider_asking_to_summarise_vybes_checkpoint_again_gets_it_again_with_no_turn(
    recorded, upstream
):
    proxy = recorded(upstream.url)
    first = captured("first")
    session = wire.session_of(wire.CHAT, {}, first)
    post(proxy.url, PATH, first)[1].read()
    proxy.rows(session, 5)
    reply = json.loads(post(proxy.url, PATH, captured("summary"), timeout=60)[1].read())
    text = reply["choices"][0]["message"]["content"]
    turns = len(upstream.posts)
    body = captured("summary")
    again = [
        body["messages"][0],
        {"role": "user", "content": f"# USER\n{scaffolding.SUMMARY}{text}\n"},
    ]
    assert wire.session_of(wire.CHAT, {}, {"messages": again}) == session
    _, response = post(proxy.url, PATH, {**body, "messages": again}, timeout=60)
    assert json.loads(response.read())["choices"][0]["message"]["content"] == text
    assert len(upstream.posts) == turns


def _fixture(name: str) -> dict:
    return json.loads((FIXTURES / f"{name}.json").read_text())["body"]


CODEX_CONTEXT = "<environment_context>\n  <cwd>/home/user/cx</cwd>\n  <shell>bash</shell>\n"
FOLDERS = {
    # Claude Code 2.1.197's system prompt: its environment section's bullets
    "claude": (
        {
            "system": [
                {"type": "text", "text": "You are Claude Code."},
                {
                    "type": "text",
                    "text": "# Environment\nYou have been invoked in the following environment:"
                    " \n - Primary working directory: /home/user/cc\n - Is a git repository: true",
                },
            ],
            "messages": [{"role": "user", "content": "hi"}],
        },
        "/home/user/cc",
    ),
    # OpenCode 1.18.33's system message: its <env> block
    "opencode": (
        {
            "messages": [
                {
                    "role": "system",
                    "content": "You are opencode.\n<env>\n  Working directory: /home/user/oc\n"
                    "  Workspace root folder: /home/user/oc\n</env>",
                },
                {"role": "user", "content": "hi"},
            ]
        },
        "/home/user/oc",
    ),
    # Codex's environment context, the first user item of its input
    "codex": (
        {
            "instructions": "You are Codex.",
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": CODEX_CONTEXT}],
                },
                {"type": "message", "role": "user", "content": "hi"},
            ],
        },
        "/home/user/cx",
    ),
    # Gemini CLI 0.61.0's session context, as the pinned client sent it
    "gemini": (_fixture("gemini-0.61.0-turn"), "/home/user/project"),
    # Aider 0.86.2's first request names no folder
    "aider": (_fixture("aider-0.86.2-first"), None),
}


@pytest.mark.parametrize("client", sorted(FOLDERS))
def test_a_request_names_the_folder_its_client_works_in(client):
    body, folder = FOLDERS[client]
    assert scaffolding.folder(body) == folder


def test_a_folder_in_a_private_span_is_none_and_a_secret_in_one_is_redacted():
    hidden = "<private>\nWorking directory: /home/ann/hidden-place\n</private> hi"
    assert scaffolding.folder({"messages": [{"role": "user", "content": hidden}]}) is None
    key = "AKIA" + "Q3EGQ7RJ5XNV2MLT"  # an AWS key id's shape, made up
    named = f"Working directory: /home/ann/{key}\n"
    found = scaffolding.folder({"messages": [{"role": "user", "content": named}]})
    assert found is not None and key not in found and "[REDACTED:" in found


def test_a_folder_a_person_types_later_in_the_conversation_is_not_the_clients():
    typed = [{"role": "user", "content": f"turn {n}"} for n in range(6)]
    typed.append({"role": "user", "content": "Working directory: /etc"})
    assert scaffolding.folder({"messages": typed}) is None


def test_the_command_output_only_its_summary_request_carries_is_recorded_before_the_checkpoint(
    recorded, upstream
):
    """Aider runs the reply's commands after the reply and summarises the history at once:
    their output is in no request before its summary request."""
    proxy = recorded(upstream.url)
    first = captured("first")
    session = wire.session_of(wire.CHAT, {}, first)
    post(proxy.url, PATH, first)[1].read()
    reply = next(r.text for r in proxy.rows(session, 5) if r.type == "assistant")
    ran = "Output from cat hello.py\ndef hello():\n    print('hello')\n\n\n"
    told = f"# USER\n{MISSION}\n# ASSISTANT\n{reply}\n# USER\n{ran}# ASSISTANT\nOk\n"
    body = captured("summary")
    body = {**body, "messages": [body["messages"][0], {"role": "user", "content": told}]}
    _, response = post(proxy.url, PATH, body, timeout=60)
    text = json.loads(response.read())["choices"][0]["message"]["content"]
    rows = proxy.rows(session, 6)
    assert text.startswith(f"vybe checkpoint of session {session}, taken from its record.")
    outputs = [r.text for r in rows if "Output from cat hello.py" in r.text]
    assert len(outputs) == 1 and outputs[0].rstrip().endswith(ran.rstrip())
    assert [r.type for r in rows if r.text == outputs[0]] == ["harness"]
    assert [r.text for r in rows if r.type == "user"] == [MISSION]
    assert [a.outcome for a in proxy.record.attempts(session)] == ["accepted"]
    post(proxy.url, PATH, body, timeout=60)[1].read()  # asked again: nothing twice
    assert len([r for r in proxy.rows(session, 6) if "Output from" in r.text]) == 1


def test_a_restored_sessions_summary_request_records_none_of_the_persons_words_again(
    recorded, upstream
):
    """--restore-chat-history reads the history back from Aider's Markdown file: the person's
    lines end in two spaces there and its replies differ, so none of it matches the record;
    the person's words in its summary request were each sent before and are never new."""
    proxy = recorded(upstream.url)
    first = captured("first")
    session = wire.session_of(wire.CHAT, {}, first)
    post(proxy.url, PATH, first)[1].read()
    restored = f"# USER\n{MISSION}  \n# ASSISTANT\nA reply, as Markdown kept it.\n"
    told = restored + "# USER\nport the lexer  \n"  # the head it summarises ends so too
    body = captured("summary")
    body = {**body, "messages": [body["messages"][0], {"role": "user", "content": told}]}
    post(proxy.url, PATH, body, timeout=60)[1].read()
    rows = proxy.rows(session, 3)
    assert [r.text for r in rows if r.type == "user"] == [MISSION]
    assert not any("port the lexer" in r.text for r in rows)
