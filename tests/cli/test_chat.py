"""vybe chat and vybe session, as people and scripts run them, against a fake server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time

from tests.conftest import TRANSCRIPTS, VYBE, in_process
from tests.fakes.servers import FakeServer, Received, Response, openai_events, openai_reply

TRANSCRIPT = str(TRANSCRIPTS / "claude-codemie-code-9eda1058-summaries.jsonl")


def model_flags(server: FakeServer) -> list[str]:
    return ["--model", "local", "--base-url", server.url + "/v1", "--window", "8000"]


def run_chat(vybe, folder, *args: str, typed: str | None = None) -> subprocess.CompletedProcess:
    """`vybe chat` as a person (``typed`` on stdin) or a script runs it, in ``folder``: the
    executable's own ``main`` in-process, with the run's stdin, stdout and stderr."""
    from vybe.cli.main import main

    argv = ["chat", *args]
    with in_process(vybe.env, (typed or "").encode(), cwd=folder, argv=argv) as streams:
        code = main(argv)
    return subprocess.CompletedProcess(argv, code, streams.out, streams.err)


def test_once_replies_in_one_envelope_with_session_and_calls(vybe, tmp_path):
    steps = [
        openai_reply(calls=[("c1", "write", {"path": str(tmp_path / "x.txt"), "content": "1"})]),
        openai_reply("ok"),
    ]
    with FakeServer(lambda r: steps[len(server.posts) - 1]) as server:
        data = vybe.ok("chat", "--once", "write x", *model_flags(server))
    assert data["reply"] == "ok"
    assert data["session_id"].startswith("ses_")
    assert [c["name"] for c in data["tool_calls"]] == ["write"]
    assert data["checkpoints"] == []


def test_interactive_chat_prints_the_streamed_reply_on_stdout(vybe, tmp_path):
    text = "Hello! I stream my words as they arrive."
    with FakeServer(lambda r: openai_reply(text)) as server:
        shown = run_chat(vybe, tmp_path, *model_flags(server), typed="hi there\n/exit\n")
    assert shown.returncode == 0, shown.stderr
    assert f"vibey> {text}\n" in shown.stdout
    assert json.loads(shown.stdout.splitlines()[-1])["data"]["turns"] == 1
    assert server.posts[0].body["stream"] is True
    # The session is the chatting agent's, in the project of the folder it runs in.
    assert vybe.sql("SELECT agent_name, project_id FROM sessions") == [("default", str(tmp_path))]


def test_interactive_chat_says_on_one_line_that_a_broken_stream_is_retried(vybe, tmp_path):
    text = "This reply breaks off the first time it is sent."
    cut = Response(events=openai_events(openai_reply(text).body), die=True)
    answers = [cut, openai_reply(text)]
    with FakeServer(lambda r: answers[len(server.posts) - 1]) as server:
        shown = run_chat(vybe, tmp_path, *model_flags(server), typed="hi there\n/exit\n")
    notices = [line for line in shown.stderr.splitlines() if "retrying" in line]
    assert len(notices) == 1 and "RemoteProtocolError" in notices[0]
    replies = [line for line in shown.stdout.splitlines() if line.startswith("vibey> ")]
    assert len(replies) == 2 and text.startswith(replies[0][7:]) and replies[1] == f"vibey> {text}"
    shown_session = vybe.ok("session", "list")["sessions"][0]
    assert vybe.ok("session", "show", shown_session["id"])["stats"]["by_type"]["assistant"] == 1


def test_once_streams_underneath_and_prints_only_the_envelope(vybe, tmp_path):
    with FakeServer(lambda r: openai_reply("a streamed answer")) as server:
        result = run_chat(vybe, tmp_path, "--once", "hi", *model_flags(server))
    assert server.posts[0].body["stream"] is True
    assert len(result.stdout.splitlines()) == 1
    assert json.loads(result.stdout)["data"]["reply"] == "a streamed answer"


def test_no_stream_asks_for_whole_replies(vybe):
    with FakeServer(lambda r: openai_reply("whole")) as server:
        data = vybe.ok("chat", "--once", "hi", "--no-stream", *model_flags(server))
    assert data["reply"] == "whole"
    assert "stream" not in server.posts[0].body


def test_missing_key_fails_before_any_turn(vybe):
    vybe.env.pop("ANTHROPIC_API_KEY", None)
    result = vybe("chat", "--once", "hi", "--provider", "anthropic")
    assert result.error_code == "MODEL_KEY_MISSING"
    assert vybe.ok("session", "list")["count"] == 0


def test_unreachable_server_fails_before_any_turn(vybe):
    with FakeServer(lambda r: openai_reply("x")) as server:
        url = server.url
    result = vybe("chat", "--once", "hi", "--base-url", url, "--model", "m")
    assert result.error_code == "MODEL_ERROR"
    assert "cannot reach" in result.envelope["error"]


def test_session_killed_mid_turn_resumes_with_nothing_said_twice(vybe, tmp_path):
    release = threading.Event()
    call = openai_reply(calls=[("c1", "write", {"path": "done.txt", "content": "written"})])

    def respond(received: Received) -> object:
        if len(server.posts) == 1:
            return call
        if len(server.posts) == 2:
            release.wait(20)
        return openai_reply("finished")

    with FakeServer(respond) as server:
        command = [
            VYBE,
            "chat",
            "--once",
            "write done.txt",
            "--session",
            "s9",
            *model_flags(server),
        ]
        with subprocess.Popen(command, env=vybe.env, cwd=tmp_path, stdout=subprocess.PIPE) as proc:
            deadline = time.monotonic() + 20
            while len(server.posts) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(proc.pid, signal.SIGKILL)
        release.set()
        resumed = run_chat(
            vybe, tmp_path, "--once", "and now?", "--session", "s9", *model_flags(server)
        )
    data = json.loads(resumed.stdout)["data"]
    assert data["reply"] == "finished"
    assert (tmp_path / "done.txt").read_text() == "written"
    shown = vybe.ok("session", "show", "s9")
    assert shown["stats"]["by_type"] == {"user": 2, "assistant": 2, "tool": 1}
    last = json.dumps(server.posts[-1].body)
    assert last.count("write done.txt") == 1
    assert "finished" not in last


def test_say_records_a_persons_message_and_a_harness_input(vybe):
    person = vybe.ok("session", "say", "s1", "[Harness: Watch fake] do it")
    assert person["type"] == "user"
    assert not person["text"].startswith("[Harness:")
    harness = vybe.ok("session", "say", "s1", "--harness", 'Watch w1 "nightly"', "build broke")
    assert harness["type"] == "harness"
    assert harness["text"] == '[Harness: Watch w1 "nightly"]\nbuild broke'


def test_context_shows_the_next_request_in_wire_format(vybe):
    vybe.ok("session", "say", "s1", "hello there")
    data = vybe.ok("session", "context", "s1", "--model", "claude-haiku-4-5")
    assert data["provider"] == "anthropic"
    assert data["request"]["messages"][-1]["content"][0]["text"] == "hello there"
    assert "Vibey" in data["request"]["system"][0]["text"]


def test_import_then_list_and_show(vybe):
    imported = vybe.ok("session", "import", "--claude", TRANSCRIPT)
    assert imported["imported"]["user"] == 3
    again = vybe.ok("session", "import", "--claude", TRANSCRIPT)
    assert again["lines"] == 0
    listed = vybe.ok("session", "list")
    assert listed["sessions"][0]["id"] == imported["session_id"]
    assert listed["sessions"][0]["user_messages"] == 3
    shown = vybe.ok("session", "show", imported["session_id"])
    assert shown["checkpoint"] is None


def test_show_unknown_session_is_not_found(vybe):
    vybe.ok("init")
    assert vybe("session", "show", "nope").error_code == "NOT_FOUND"


def test_piped_chat_refuses_bash_instead_of_taking_the_next_line_as_a_yes(vybe, tmp_path):
    steps = [openai_reply(calls=[("c1", "bash", {"command": "echo hi"})]), openai_reply("ok")]
    steps += [openai_reply("second seen")]
    with FakeServer(lambda r: steps[len(server.posts) - 1]) as server:
        shown = run_chat(vybe, tmp_path, *model_flags(server), typed="run it\nyes\n/exit\n")
    assert "Allow?" not in shown.stderr
    assert "vibey> second seen" in shown.stdout
    assert "not allowed" in json.dumps(server.posts[1].body)
