"""The hook entry point never blocks the agent and answers only what each event accepts."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from tests.integrations.conftest import FIXTURES, target_of
from vybe.integrations.hooks import hook as hooks
from vybe.store import open_store

CONTEXT_EVENTS = {
    "claude": {"SessionStart", "UserPromptSubmit", "PostToolUseFailure"},
    "codex": {"SessionStart", "UserPromptSubmit", "PostToolUse"},
    "gemini": {"BeforeAgent"},
}
ALL_FIXTURES = sorted((p.parent.name, p.stem) for p in FIXTURES.glob("*/*.json"))


@pytest.mark.parametrize(("target", "name"), ALL_FIXTURES)
def test_every_event_exits_0_with_only_accepted_fields(agent, target, name):
    run = agent.send(target, name)
    assert (run.code, agent.log) == (0, ""), run.stderr
    output = run.output
    event = agent.event(target, name)["hook_event_name"]
    if output is None or (target_of(target) == "gemini" and output == {}):
        return  # Gemini CLI reads stderr when stdout is empty: vybe answers {} at the least
    if event in CONTEXT_EVENTS[target_of(target)]:
        assert set(output) == {"hookSpecificOutput"}
        specific = output["hookSpecificOutput"]
        assert specific["hookEventName"] == event
        assert set(specific) == {"hookEventName", "additionalContext"}
        assert len(specific["additionalContext"]) <= 10_000
    else:
        assert (target_of(target), event, output) == ("codex", "Stop", {})


def test_malformed_json_exits_0_silently_and_logs(agent):
    run = agent.raw("claude", b'{"hook_event_name": "UserPromptSubmit", "prompt": ')
    assert (run.code, run.stdout) == (0, "")
    assert "JSONDecodeError" in agent.log


def test_unknown_event_is_ignored(agent):
    run = agent.send("claude", "session_end", hook_event_name="SomethingNew", extra={"a": 1})
    assert (run.code, run.stdout) == (0, "")
    assert agent.log == ""


def test_a_payload_that_is_not_an_object_is_ignored(agent):
    run = agent.raw("codex", b"[1, 2, 3]")
    assert (run.code, run.stdout) == (0, "")


@pytest.mark.sqlite_only("a SQLite path that is a folder")
def test_an_unusable_database_never_blocks_the_prompt(agent):
    agent.vybe.env["VYBE_DB_PATH"] = str(agent.project)  # a folder, not a database
    run = agent.send("claude", "user_prompt_submit")
    assert (run.code, run.stdout) == (0, "")
    assert "error" in agent.log


@pytest.mark.sqlite_only("a SQLite path that is a folder")
def test_codex_stop_still_answers_json_when_its_handler_fails(agent):
    agent.vybe.env["VYBE_DB_PATH"] = str(agent.project)  # a folder, not a database
    run = agent.send("codex", "stop")
    assert (run.code, run.output) == (0, {})
    assert "error" in agent.log


def test_a_five_megabyte_prompt_is_kept_whole_and_logged_short(agent):
    prompt = "Keep this exactly: " + "ä€x\n" * (5 * 1024 * 1024 // 7)
    run = agent.send("claude", "user_prompt_submit", prompt=prompt)
    assert (run.code, agent.log) == (0, "")
    [(text,)] = agent.rows("SELECT content_text FROM messages WHERE type = 'user'")
    assert text == prompt
    [(message,)] = agent.rows("SELECT message FROM events WHERE kind = 'user_prompt'")
    assert len(message) <= 500


def test_the_hook_path_imports_only_the_standard_library_and_vybe(agent):
    probe = (
        "import sys, io\n"
        "sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))\n"
        "sys.argv = ['vybe', 'hook', 'run', 'claude']\n"
        "from vybe.cli.entry import main\n"
        "main()\n"
        "heavy = {'httpx', 'yaml', 'mcp', 'openai', 'anthropic', 'pydantic', 'argparse'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    for name in ("session_start_compact", "user_prompt_submit"):
        payload = json.dumps(agent.event("claude", name))
        done = subprocess.run(
            [sys.executable, "-c", probe, payload],
            capture_output=True,
            text=True,
            env=agent.vybe.env,
            check=True,
        )
        assert done.stdout.strip().splitlines()[-1] == "[]"


def test_context_over_the_hook_limit_is_cut_within_it_and_says_so():
    output = json.loads(hooks.render("claude", "UserPromptSubmit", "x" * 50_000))
    context = output["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= hooks.CONTEXT_LIMIT
    assert context.endswith("\n[cut to fit the hook limit]")


@pytest.mark.sqlite_only("SQLite's write-ahead log")
def test_a_hook_process_leaves_the_wal_checkpoint_to_later_with_its_writes_committed(agent):
    """Closed as the store's last connection, a hook's connection would copy the WAL into
    the database with two fsyncs on every prompt; the executable leaves the connection to
    the process's end instead. The prompt is committed all the same: a new connection reads
    it, from the WAL the next checkpoint copies. In-process (no such end), it is closed."""
    agent.vybe.ok("init")
    wal = agent.vybe.db_path.with_name(agent.vybe.db_path.name + "-wal")
    prompt = agent.event("claude", "user_prompt_submit", prompt="keep the WAL")
    run = agent.process("claude", json.dumps(prompt).encode())
    assert (run.code, agent.log) == (0, "")
    assert wal.exists() and wal.stat().st_size > 0
    reader = sqlite3.connect(agent.vybe.db_path)
    sql = "SELECT content_text FROM messages WHERE source = 'prompt_hook'"
    assert reader.execute(sql).fetchall() == [("keep the WAL",)]
    reader.close()  # the last connection: it copies the WAL into the database
    assert not wal.exists()
    agent.send("claude", "user_prompt_submit", prompt="in-process")
    assert not wal.exists()


@pytest.mark.sqlite_only("SQLite's synchronous setting")
def test_a_hooks_commits_are_synced_as_they_happen_not_at_a_later_checkpoint(agent):
    """A hook leaves the checkpoint (which would sync its writes) to later, so each of its
    commits syncs the WAL itself: a power cut right after the prompt loses nothing."""
    agent.vybe.ok("init")
    hook = hooks.Hook("claude", "UserPromptSubmit", {}, "claude", agent.vybe.settings("claude"))
    try:
        assert tuple(hook.store.conn.execute("PRAGMA synchronous").fetchone()) == (2,)  # FULL
    finally:
        hook.close()
    other = open_store(str(agent.vybe.db_path))
    assert tuple(other.conn.execute("PRAGMA synchronous").fetchone()) == (1,)  # NORMAL
    other.close()


@pytest.mark.sqlite_only("SQLite's synchronous setting")
@pytest.mark.parametrize("event", sorted(hooks.UNSYNCED_EVENTS))
def test_a_hook_that_writes_nothing_of_the_record_does_not_sync_each_commit(agent, event):
    """A session's start or end writes a cursor, a receipt or an event, never a message:
    its commits skip the fsync (a power cut may lose those, and no word of the person's)."""
    agent.vybe.ok("init")
    hook = hooks.Hook("claude", event, {}, "claude", agent.vybe.settings("claude"))
    try:
        assert tuple(hook.store.conn.execute("PRAGMA synchronous").fetchone()) == (1,)  # NORMAL
    finally:
        hook.close()


def test_captured_payloads_are_private_whatever_the_umask(agent, tmp_path):
    """Capture mode keeps what the agents send, the person's words included: 600 files in a
    700 folder, as every file vybe writes."""
    folder = tmp_path / "captured"
    agent.vybe.env["VYBE_HOOK_CAPTURE"] = str(folder)
    before = os.umask(0o022)
    try:
        agent.send("claude", "user_prompt_submit", prompt="my secret plan")
    finally:
        os.umask(before)
    files = sorted(folder.iterdir())
    assert [p.name.endswith(".json") for p in files] == [True, False]  # and timings.jsonl
    assert {p.stat().st_mode & 0o777 for p in files} == {0o600}
    assert folder.stat().st_mode & 0o777 == 0o700
    assert "my secret plan" in files[0].read_text()
