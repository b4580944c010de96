"""The edges of a turn as the real CLIs send them: the final reply Stop carries before the
transcript holds it, each end of a resumed session, a store or import lock held too long."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.integrations.conftest import SESSIONS
from vybe import locks
from vybe.cli import hook_run
from vybe.cli.main import run as cli
from vybe.integrations.hooks import claude_code, transcript
from vybe.integrations.hooks import hook as hooks
from vybe.integrations.hooks.hook import import_lock
from vybe.store import SqliteStore, open_store

SESSION = f"claude:{SESSIONS['claude']}"


def _line(kind: str, text: str, n: int) -> str:
    message = {"role": kind, "content": [{"type": "text", "text": text}]}
    if kind == "assistant":
        message |= {"id": f"msg_{n}", "type": "message", "model": "m", "stop_reason": "end_turn"}
    line = {
        "type": kind,
        "uuid": f"u{n}",
        "parentUuid": f"u{n - 1}" if n else None,
        "sessionId": SESSIONS["claude"],
        "timestamp": f"2026-12-01T10:00:{n:02d}.000Z",
        "message": message,
    }
    return json.dumps(line) + "\n"


def _write(agent, tmp_path, *lines: str) -> None:
    agent.transcript = tmp_path / "session.jsonl"
    with agent.transcript.open("a") as handle:
        handle.writelines(lines)


def _record(agent) -> list[tuple[str, str]]:
    return agent.rows(
        "SELECT type, content_text FROM messages WHERE session_id = ? ORDER BY context_seq",
        SESSION,
    )


def test_stop_keeps_the_final_reply_the_transcript_has_not_flushed_and_never_twice(agent, tmp_path):
    _write(agent, tmp_path, _line("user", "hello", 0))
    agent.send("claude", "stop", last_assistant_message="the final reply")
    agent.send("claude", "stop", last_assistant_message="the final reply")  # a retried Stop
    assert _record(agent) == [("user", "hello"), ("assistant", "the final reply")]
    _write(agent, tmp_path, _line("assistant", "the final reply", 1), _line("user", "next", 2))
    agent.send("claude", "stop", last_assistant_message="the final reply")
    assert _record(agent) == [
        ("user", "hello"),
        ("assistant", "the final reply"),
        ("user", "next"),
    ]


def _call_lines(n: int) -> list[str]:
    """A failed Bash call as Claude Code writes it: the tool_use line, then its result."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls /x"}}
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "Exit 2",
        "is_error": True,
    }
    lines = [
        {"type": "assistant", "message": {"id": f"msg_{n}", "role": "assistant", "content": [use]}},
        {"type": "user", "message": {"role": "user", "content": [result]}},
    ]
    return [
        json.dumps({"sessionId": SESSIONS["claude"], "uuid": f"c{n}{i}"} | line) + "\n"
        for i, line in enumerate(lines)
    ]


def _stop_before_the_flush(agent, tmp_path, monkeypatch) -> str:
    """A turn whose Stop finds the file without its last call's result (nor the reply)."""
    monkeypatch.setattr(claude_code, "FLUSH_WAIT", 0)  # the file stays behind this Stop
    use, result = _call_lines(1)
    _write(agent, tmp_path, _line("user", "fix it", 0), use)
    agent.send("claude", "stop", last_assistant_message="done: Exit 2")
    return result


def test_a_stop_that_finds_the_last_result_unflushed_leaves_the_reply_to_the_file(
    agent, tmp_path, monkeypatch
):
    result = _stop_before_the_flush(agent, tmp_path, monkeypatch)
    assert _record(agent) == [("user", "fix it"), ("assistant", "")]  # the call waits
    _write(agent, tmp_path, result, _line("assistant", "done: Exit 2", 3), _line("user", "on", 4))
    agent.send("claude", "stop", last_assistant_message="done: Exit 2")
    assert _record(agent) == [
        ("user", "fix it"),
        ("assistant", ""),
        ("tool", "Exit 2"),
        ("assistant", "done: Exit 2"),
        ("user", "on"),
    ]


@pytest.mark.parametrize("then", ["session_end", "user_prompt_submit"])
def test_the_next_hook_brings_the_unflushed_end_of_a_turn_before_what_it_writes(
    agent, tmp_path, monkeypatch, then
):
    """``claude -p`` ends the run (SessionEnd) or the person types on (UserPromptSubmit)
    before any Stop reads the file again: that hook imports the turn's end first."""
    result = _stop_before_the_flush(agent, tmp_path, monkeypatch)
    _write(agent, tmp_path, result, _line("assistant", "done: Exit 2", 3))
    agent.send("claude", then, prompt="the next step")
    typed = [("user", "the next step")] if then == "user_prompt_submit" else []
    assert _record(agent) == [
        ("user", "fix it"),
        ("assistant", ""),
        ("tool", "Exit 2"),
        ("assistant", "done: Exit 2"),
        *typed,
    ]


def test_stop_waits_for_a_late_flush_so_the_tool_result_lands_before_the_reply(agent, tmp_path):
    """Claude Code flushes its transcript about every 100 ms: a Stop that finds the file
    behind waits for it to grow, and the record keeps the order things happened in."""
    use, result = _call_lines(1)
    _write(agent, tmp_path, _line("user", "fix it", 0), use)
    late = "import sys, time; time.sleep(0.1); open(sys.argv[1], 'a').write(sys.argv[2])"
    writer = subprocess.Popen([sys.executable, "-c", late, str(agent.transcript), result])
    try:
        agent.send("claude", "stop", last_assistant_message="done: Exit 2")
    finally:
        writer.wait()
    assert _record(agent) == [
        ("user", "fix it"),
        ("assistant", ""),
        ("tool", "Exit 2"),
        ("assistant", "done: Exit 2"),
    ]


def test_each_end_of_a_resumed_session_is_logged_and_a_retried_one_once(agent, tmp_path):
    _write(agent, tmp_path, _line("user", "first run", 0))
    agent.send("claude", "session_end")
    agent.send("claude", "session_end")
    _write(agent, tmp_path, _line("user", "the resumed run", 1))
    agent.send("claude", "session_end")
    assert len(agent.rows("SELECT id FROM events WHERE kind = 'session_end'")) == 2


@pytest.fixture
def inprocess(agent, monkeypatch):
    for key, value in agent.vybe.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(agent.project)
    monkeypatch.setattr(hooks, "IMPORT_WAIT", 0.05)
    return agent


def _held(agent):
    store = open_store(agent.vybe.location)
    store.conn.execute("SELECT 1")
    return store, locks.exclusive(import_lock(store))


def test_a_held_import_lock_makes_session_import_answer_db_locked_soon(inprocess, tmp_path):
    _write(inprocess, tmp_path, _line("user", "hello", 0))
    store, lock = _held(inprocess)
    with lock:
        started = time.monotonic()
        code, text = cli(["session", "import", "--claude", str(inprocess.transcript)])
        took = time.monotonic() - started
    store.close()
    assert (code != 0, json.loads(text)["error_code"]) == (True, "DB_LOCKED")
    assert took < 1.0
    assert _record(inprocess) == []


def test_a_held_import_lock_lets_stop_return_and_the_next_stop_import_everything(
    inprocess, tmp_path
):
    _write(inprocess, tmp_path, _line("user", "hello", 0), _line("assistant", "hi", 1))
    payload = json.dumps(inprocess.event("claude", "stop", last_assistant_message="hi")).encode()
    store, lock = _held(inprocess)
    with lock:
        assert hook_run.run("claude", payload) == ""
    store.close()
    assert _record(inprocess) == [("assistant", "hi")]  # only the reply Stop carried
    hook_run.run("claude", payload)
    assert _record(inprocess) == [("assistant", "hi"), ("user", "hello")]


@pytest.mark.sqlite_only("SQLite's write lock (BEGIN IMMEDIATE) and the file's -pending folder")
def test_a_prompt_the_locked_store_refuses_is_kept_and_added_in_order_next_time(inprocess):
    prompt = inprocess.event("claude", "user_prompt_submit", prompt="never lose me")
    locker = SqliteStore(str(inprocess.vybe.db_path))
    locker.conn.execute("BEGIN IMMEDIATE")
    hooks.HOOK_BUSY_TIMEOUT_MS, saved = 20, hooks.HOOK_BUSY_TIMEOUT_MS
    try:
        assert hook_run.run("claude", json.dumps(prompt).encode()) == ""
    finally:
        hooks.HOOK_BUSY_TIMEOUT_MS = saved
        locker.conn.execute("ROLLBACK")
        locker.close()
    kept = os.listdir(f"{inprocess.vybe.db_path}-pending")
    assert len(kept) == 1 and _record(inprocess) == []
    hook_run.run("claude", json.dumps({**prompt, "prompt": "the next one"}).encode())
    assert _record(inprocess) == [("user", "never lose me"), ("user", "the next one")]
    assert os.listdir(f"{inprocess.vybe.db_path}-pending") == []
    events = inprocess.rows("SELECT message FROM events WHERE kind = 'user_prompt' ORDER BY id")
    assert events == [("never lose me",), ("the next one",)]


@pytest.mark.parametrize("event", ["user_prompt_submit", "session_end"])
def test_a_catch_up_import_that_fails_costs_neither_the_prompt_nor_the_end(
    inprocess, tmp_path, monkeypatch, event
):
    """The turn's end waits for the next import; what the hook came to write is written."""
    _stop_before_the_flush(inprocess, tmp_path, monkeypatch)

    def broken(*args, **kwargs):
        raise RuntimeError("the transcript could not be read")

    monkeypatch.setattr(transcript, "import_since_hooks", broken)
    payload = inprocess.event("claude", event, prompt="the next step")
    hook_run.run("claude", json.dumps(payload).encode())
    if event == "user_prompt_submit":
        assert _record(inprocess)[-1] == ("user", "the next step")
    else:
        assert len(inprocess.rows("SELECT id FROM events WHERE kind = 'session_end'")) == 1
