"""Gemini CLI's hooks, played with the payloads the real Gemini CLI 0.61.0 sent
(``tests/integrations/fixtures/gemini``, captured by the gemini-hooks e2e scenario): the brief
with the first prompt after a start, each prompt, call, result and reply recorded once, the
person's words given back after ``/compress``, a JSON answer to every event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integrations.conftest import SESSIONS
from tests.privacy.planted import needles, planted
from tests.privacy.test_planted_secrets import PRIVATE, home_bytes, store_bytes, words

FIXTURES = Path(__file__).with_name("fixtures") / "gemini"
SESSION = f"gemini:{SESSIONS['gemini']}"
PROMPT = json.loads((FIXTURES / "before_agent.json").read_text())["prompt"]
REPLY = json.loads((FIXTURES / "after_agent.json").read_text())["prompt_response"]
HEAD = "== VYBE (task tracker) =="
NAMES = sorted(p.stem for p in FIXTURES.glob("*.json"))


@pytest.fixture
def agent(agent):
    agent.transcript = FIXTURES / "transcript.jsonl"
    return agent


def rows(agent, session: str = SESSION) -> list[tuple]:
    return agent.rows(
        "SELECT type, source, content_text FROM messages WHERE session_id = ? ORDER BY context_seq",
        session,
    )


def typed(agent) -> list[str]:
    return [text for kind, _, text in rows(agent) if kind == "user"]


@pytest.mark.parametrize("name", NAMES)
def test_every_event_is_answered_with_a_json_object(agent, name):
    """Gemini CLI parses stderr when stdout is empty: vybe always answers JSON, ``{}`` at
    the least, and exits 0."""
    run = agent.send("gemini", name)
    assert run.code == 0
    assert isinstance(json.loads(run.stdout), dict)


def test_a_payload_that_is_no_json_is_answered_with_an_empty_object(agent):
    run = agent.raw("gemini", b"not json")
    assert (run.code, run.stdout.strip()) == (0, "{}")
    assert '"target": "gemini"' in agent.log


def test_the_brief_comes_with_the_first_prompt_after_a_start_never_at_the_start(agent):
    start = agent.send("gemini", "session_start_startup")
    first = agent.send("gemini", "before_agent")
    second = agent.send("gemini", "before_agent", timestamp="2026-12-05T23:16:00.000Z")
    assert start.output == {}
    assert first.output["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    assert first.context.startswith(HEAD)
    assert first.context.endswith(f"vybe session {SESSION}")
    assert second.output == {}  # an ordinary prompt gets nothing added
    assert typed(agent) == [PROMPT, PROMPT]


def test_a_resumed_session_gets_its_brief_again_with_its_next_prompt(agent):
    agent.send("gemini", "session_start_startup")
    agent.send("gemini", "before_agent")
    agent.send("gemini", "session_start_resume")
    again = agent.send("gemini", "before_agent", prompt="read the lexer")
    assert "No task assigned" in again.context or HEAD in again.context
    assert again.context.endswith(f"vybe session {SESSION}")


def test_a_session_that_ends_before_any_prompt_leaves_no_mark_of_its_start(agent):
    marks = agent.vybe.home / "config" / "gemini-starts"
    agent.send("gemini", "session_start_startup")
    assert [p.name for p in marks.iterdir()] == [SESSIONS["gemini"]]
    agent.send("gemini", "session_end")
    assert list(marks.iterdir()) == []
    assert agent.send("gemini", "before_agent").output == {}  # no brief: no start pending


def test_a_hook_context_gemini_cli_put_before_the_prompt_is_not_recorded(agent):
    """Headless, Gemini CLI writes a SessionStart hook's context before the typed prompt in
    one text (seen in its 0.61.0 payloads: ``<hook_context>…</hook_context>\\n\\n<prompt>``)."""
    prompt = "<hook_context>CTX-SessionStart &lt;b&gt;</hook_context>\n\n" + PROMPT
    agent.send("gemini", "before_agent", prompt=prompt)
    assert typed(agent) == [PROMPT]


def test_a_tool_call_and_its_result_are_recorded_once_however_often_the_hook_runs(agent):
    agent.send("gemini", "after_tool_ok_list_directory")
    agent.send("gemini", "after_tool_ok_list_directory")
    found = rows(agent)
    assert [(kind, source) for kind, source, _ in found] == [
        ("assistant", "assistant"),
        ("tool", "list_directory"),
    ]
    assert found[1][2].startswith("Directory listing for ")
    [(data,)] = agent.rows(
        "SELECT content_json FROM messages WHERE session_id = ? AND type = 'assistant'", SESSION
    )
    call = json.loads(data)["tool_calls"][0]
    assert (call["name"], call["arguments"]) == ("list_directory", {"dir_path": "."})
    [(result,)] = agent.rows(
        "SELECT content_json FROM messages WHERE session_id = ? AND type = 'tool'", SESSION
    )
    assert json.loads(result)["tool_call_id"] == call["id"]


def test_a_failed_call_is_kept_as_an_error_and_logged(agent):
    agent.send("gemini", "after_tool_failed_read_file")
    [(data,)] = agent.rows(
        "SELECT content_json FROM messages WHERE session_id = ? AND type = 'tool'", SESSION
    )
    assert json.loads(data)["is_error"] is True
    [(message,)] = agent.rows("SELECT message FROM events WHERE kind = 'tool_failure'")
    assert message.startswith("read_file: ")
    assert "File not found" in message


def test_the_final_reply_is_recorded_once_after_its_prompt(agent):
    agent.send("gemini", "before_agent")
    agent.send("gemini", "after_agent")
    agent.send("gemini", "after_agent")
    assert [(k, t) for k, _, t in rows(agent)] == [("user", PROMPT), ("assistant", REPLY)]


def test_after_compress_the_next_prompt_gets_the_persons_words_and_completes_the_receipt(agent):
    agent.send("gemini", "session_start_startup")
    agent.send("gemini", "before_agent")
    agent.send("gemini", "before_agent", prompt="Use tabs, never spaces.", timestamp="t2")
    compress = agent.send("gemini", "pre_compress_manual")
    after = agent.send("gemini", "before_agent", prompt="go on", timestamp="t3")
    assert compress.output == {}
    assert after.context.startswith("1st compaction of this session; your 2 kept instructions")
    assert PROMPT in after.context and "Use tabs, never spaces." in after.context
    assert f"--session-id {SESSION}" in after.context  # how to search the rest
    assert after.context.endswith(f"vybe session {SESSION}")
    receipts = agent.rows(
        "SELECT compactor, trigger, completed FROM compaction_receipts WHERE session_id = ?",
        SESSION,
    )
    assert receipts == [("gemini", "manual", 1)]
    assert agent.send("gemini", "before_agent", prompt="next", timestamp="t4").output == {}
    assert typed(agent) == [PROMPT, "Use tabs, never spaces.", "go on", "next"]


def test_a_status_question_gets_the_brief(agent):
    run = agent.send("gemini", "before_agent", prompt="where are we?")
    assert HEAD in run.context


def test_a_session_vybe_does_not_record_writes_nothing(agent):
    agent.vybe.env["VYBE_RECORD"] = "off"
    assert agent.send("gemini", "session_start_startup").output == {}
    assert agent.send("gemini", "before_agent").output == {}
    agent.send("gemini", "after_tool_ok_list_directory")
    agent.send("gemini", "after_agent")
    assert rows(agent) == []
    assert not (agent.vybe.home / "config" / "gemini-starts").exists()


def test_no_planted_secret_or_private_span_reaches_a_byte_the_hooks_write(agent):
    """The 40 planted secrets and a private span, in a prompt, a tool's output, a failed
    call's error and the reply: none reaches the store or a file under HOME (the start's
    mark, hooks.log), while the words around them do."""
    secrets = planted()
    text = words(secrets)
    agent.send("gemini", "session_start_startup")
    agent.send("gemini", "before_agent", prompt=text)
    agent.send("gemini", "after_tool_ok_list_directory", tool_response={"llmContent": text})
    failed = {"llmContent": "no", "error": {"message": text, "type": "file_not_found"}}
    agent.send("gemini", "after_tool_failed_read_file", tool_response=failed)
    agent.send("gemini", "after_agent", prompt_response=text)
    found = store_bytes(agent.vybe) + home_bytes(agent.vybe)
    assert b"please look at these" in store_bytes(agent.vybe)
    for shape, secret, _ in secrets:
        for needle in needles(secret):
            assert needle.encode() not in found, shape
    assert PRIVATE.encode() not in found
