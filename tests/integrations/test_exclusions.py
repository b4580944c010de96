"""Keeping things out: ``VYBE_RECORD=off`` for one session and privacy.exclude_projects in
config.yaml leave nothing of a session in the store (hooks, imports, the proxy, chat) while
the hooks still answer; privacy.exclude_tools keeps a tool's arguments and output out."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import VYBE
from tests.integrations.conftest import FIXTURES
from vybe.context.recorder import NOT_RECORDED

CLAUDE = FIXTURES / "claude" / "transcript.jsonl"  # its lines say cwd /home/u/proj
PROMPT = "a prompt nobody may keep 7731"


def _configure(vybe, text: str) -> None:
    path = vybe.config_dir / "config.yaml"
    path.write_text(path.read_text() + text)


def _a_whole_session(agent, target: str) -> list:
    """Every event of a session, with a tool failure and a prompt; each hook's answer."""
    answers = [agent.send(target, "session_start_startup")]
    answers.append(agent.send(target, "user_prompt_submit", prompt=PROMPT))
    failure = "post_tool_use_failure" if target == "claude" else "post_tool_use_failed_bash"
    answers += [agent.send(target, failure), agent.send(target, "stop")]
    answers.append(agent.send(target, "pre_compact"))
    if target == "claude":
        answers.append(agent.send(target, "session_end"))
    return answers


def _nothing_recorded(vybe, agent, target: str) -> list:
    vybe.initialized()
    before = vybe.dump()
    answers = _a_whole_session(agent, target)
    assert all(a.code == 0 for a in answers)
    assert vybe.dump() == before
    assert agent.log == ""
    return answers


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_vybe_record_off_records_nothing_and_the_hooks_still_answer(vybe, agent, target):
    vybe.task("a task the brief shows")
    vybe.env["VYBE_RECORD"] = "off"
    answers = _nothing_recorded(vybe, agent, target)
    start = answers[0].context
    assert "a task the brief shows" in start
    assert start.count("not recording this session (VYBE_RECORD=off)") == 1
    assert all("not recording" not in a.stdout for a in answers[1:])


def test_a_status_question_still_gets_the_brief_when_recording_is_off(vybe, agent):
    vybe.task("the focus of the day")
    vybe.env["VYBE_RECORD"] = "off"
    vybe.initialized()
    before = vybe.dump()
    answer = agent.send("claude", "user_prompt_submit", prompt="where are we? status")
    assert "the focus of the day" in answer.context
    assert vybe.dump() == before


@pytest.mark.parametrize("pattern", ["{project}", "{parent}/*", "{project}/../proj"])
def test_an_excluded_project_records_nothing(vybe, agent, pattern):
    folder = pattern.format(project=agent.project, parent=agent.project.parent)
    _configure(vybe, f"privacy:\n  exclude_projects: [{json.dumps(folder)}]\n")
    answers = _nothing_recorded(vybe, agent, "claude")
    assert "(privacy.exclude_projects)" in answers[0].context


def test_a_project_not_excluded_is_recorded(vybe, agent, tmp_path):
    _configure(vybe, f"privacy:\n  exclude_projects: [{json.dumps(str(tmp_path / 'other'))}]\n")
    agent.send("claude", "user_prompt_submit", prompt=PROMPT)
    assert vybe.sql("SELECT content_text FROM messages WHERE type = 'user'") == [(PROMPT,)]


def test_an_import_of_an_excluded_project_or_with_recording_off_imports_nothing(vybe):
    vybe.initialized()
    before = vybe.dump()
    vybe.env["VYBE_RECORD"] = "off"
    data = vybe.ok("session", "import", "--claude", str(CLAUDE))
    assert (data["imported"], data["not_recorded"]) == ({}, "VYBE_RECORD=off")
    del vybe.env["VYBE_RECORD"]
    _configure(vybe, "privacy:\n  exclude_projects: [/home/u]\n")
    data = vybe.ok("session", "import", "--claude", str(CLAUDE))
    assert (data["imported"], data["not_recorded"]) == ({}, "privacy.exclude_projects")
    assert vybe.dump() == before


def test_an_excluded_tool_keeps_its_name_and_loses_its_arguments_and_output(vybe):
    _configure(vybe, "privacy:\n  exclude_tools: [Bash]\n")
    assert "npm test" in CLAUDE.read_text()
    vybe.ok("session", "import", "--claude", str(CLAUDE))

    calls = vybe.sql("SELECT content_json FROM messages WHERE content_json LIKE '%tool_calls%'")
    bash = [c for row in calls for c in json.loads(row[0])["tool_calls"] if c["name"] == "Bash"]
    assert bash and all(c["arguments"] == {} for c in bash)
    outputs = vybe.sql("SELECT content_text FROM messages WHERE type = 'tool' AND source = 'Bash'")
    assert outputs and set(outputs) == {(NOT_RECORDED,)}
    typed = vybe.sql("SELECT content_text FROM messages WHERE type = 'user'")
    assert any("payments module" in t for (t,) in typed)  # the rest is recorded
    if not hasattr(vybe, "url"):
        for suffix in ("", "-wal"):
            path = Path(f"{vybe.db_path}{suffix}")
            assert not path.exists() or b"npm test" not in path.read_bytes()


def test_an_excluded_tools_failure_is_not_logged(vybe, agent):
    _configure(vybe, "privacy:\n  exclude_tools: [Bash]\n")
    payload = agent.event("claude", "post_tool_use_failure")
    assert payload["tool_name"] == "Bash"
    vybe.initialized()
    count = vybe.event_count()
    agent.send("claude", "post_tool_use_failure")
    assert vybe.event_count() == count


@pytest.mark.parametrize(
    "privacy",
    [
        "privacy:\n  exclude_projects: /one/folder\n",
        "privacy:\n  exclude_tools: [Bash, 3]\n",
        "privacy: [Bash]\n",
    ],
)
def test_a_bad_exclusion_is_refused_and_changes_nothing(vybe, privacy):
    vybe.initialized()
    _configure(vybe, privacy)
    result = vybe.refused("CONFIG_INVALID", "task", "create", "--title", "x")
    assert result.envelope["error_context"]["field"].startswith("privacy")


@pytest.mark.sqlite_only(reason="the proxy process's own store: one file, read after it stops")
def test_a_proxy_with_recording_off_relays_and_records_nothing(vybe):
    from tests.fakes.servers import FakeServer, anthropic_reply, scripted
    from tests.proxy.talk import post
    from tests.proxy.test_record import HEADERS, claude_body, user

    vybe.initialized()
    before = vybe.dump()
    env = {**vybe.env, "VYBE_RECORD": "off"}
    with FakeServer(scripted([anthropic_reply("hello")])) as upstream:
        command = [VYBE, "proxy", "--upstream", upstream.url, "--listen", "127.0.0.1:0"]
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None
        lines = [process.stderr.readline()]
        while not (url := re.search(r"relaying (http://127\.0\.0\.1:\d+) to", lines[-1])):
            assert lines[-1] and len(lines) < 20, lines
            lines.append(process.stderr.readline())
        body = claude_body([user(PROMPT)], stream=False)
        conn, response = post(url.group(1), "/v1/messages", body, HEADERS)
        assert json.loads(response.read())["content"][0]["text"] == "hello"
        conn.close()
        assert PROMPT in json.dumps(upstream.posts[-1].body)  # the model still got the words
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert json.loads(out)["data"]["recorded"] is False, err
    assert vybe.dump() == before


def test_a_chat_with_recording_off_answers_and_leaves_no_word_in_the_store(vybe):
    from tests.fakes.servers import FakeServer, openai_reply

    vybe.initialized()
    before = vybe.dump()
    vybe.env["VYBE_RECORD"] = "off"
    with FakeServer(lambda r: openai_reply("a reply")) as server:
        flags = ["--model", "local", "--base-url", server.url + "/v1", "--window", "8000"]
        data = vybe.ok("chat", "--once", PROMPT, "--no-stream", *flags)
    assert data["reply"] == "a reply"
    assert PROMPT in json.dumps(server.posts[0].body)
    assert vybe.dump() == before
