"""`vybe statusline` for Claude Code's statusLine setting: the JSON Claude Code sends on
stdin, one line out (focus task, compactions so far, words kept), never an error."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import VYBE, in_process
from tests.integrations.conftest import SESSIONS, type_many
from vybe.cli.entry import main

# The fields Claude Code sends a status line command (its statusline docs).
PAYLOAD = {
    "session_id": SESSIONS["claude"],
    "transcript_path": "/nowhere.jsonl",
    "cwd": "/home/me/proj",
    "model": {"id": "claude-opus-4-1", "display_name": "Opus"},
    "workspace": {"current_dir": "/home/me/proj", "project_dir": "/home/me/proj"},
    "version": "2.1.197",
    "output_style": {"name": "default"},
    "cost": {"total_cost_usd": 0.42, "total_duration_ms": 180000},
    "context_window": {"context_window_size": 200000, "current_usage": {"input_tokens": 8500}},
}


def run_line(vybe, payload: object = PAYLOAD, env: dict | None = None) -> str:
    """The executable's own entry point, in-process, as Claude Code would run it."""
    stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    with in_process(env or vybe.env, stdin, argv=["statusline"]) as streams:
        code = main()
    assert code == 0
    assert streams.out.count("\n") == 1
    return streams.out.rstrip("\n")


def test_the_line_names_the_focus_the_compactions_and_the_words_kept(agent, tmp_path):
    task = agent.vybe.task("Port the billing service to Go")
    agent.vybe.ok("task", "begin", "--id", task, agent="claude")
    assert run_line(agent.vybe) == (
        "vybe · Port the billing service to Go · no compaction yet · 0 of your messages"
        " in the record"
    )
    agent.transcript = tmp_path / "none.jsonl"
    for prompt in ("Goal: port billing.", "Never deploy on Fridays.", "ok"):
        agent.send("claude", "user_prompt_submit", prompt=prompt)
    for _ in range(2):
        agent.send("claude", "pre_compact", trigger="auto")
        agent.send("claude", "session_start_compact")
    assert run_line(agent.vybe) == (
        "vybe · Port the billing service to Go · 2 compactions · 3/3 of your words kept"
    )


def test_a_cut_message_is_counted_as_cut_and_later_prompts_as_typed_since(agent, tmp_path):
    agent.transcript = tmp_path / "none.jsonl"
    for prompt in ("Goal: port billing.", "a pasted log line\n" * 20_000, "ok"):
        agent.send("claude", "user_prompt_submit", prompt=prompt)
    agent.send("claude", "pre_compact", trigger="auto")
    agent.send("claude", "session_start_compact")
    line = run_line(agent.vybe)
    assert line == "vybe · 1 compaction · 2/3 of your words kept, 1 cut", line
    agent.send("claude", "user_prompt_submit", prompt="now the invoices")
    line = run_line(agent.vybe)
    assert line == "vybe · 1 compaction · 2/3 of your words kept, 1 cut · 1 typed since", line


def test_a_session_that_uses_no_tasks_names_no_focus(agent, tmp_path):
    agent.transcript = tmp_path / "none.jsonl"
    agent.send("claude", "user_prompt_submit", prompt="Goal: port billing.")
    assert run_line(agent.vybe) == "vybe · no compaction yet · 1 of your messages in the record"


def test_a_long_sessions_words_kept_count_every_message_typed_before_the_compaction(
    agent, tmp_path, store_location
):
    """The receipt lists the newest messages only (the choice reads no more): the status
    line's figure is still of all the person had typed, and not of what came after."""
    from vybe.actions import user_words

    agent.transcript = tmp_path / "none.jsonl"
    agent.send("claude", "user_prompt_submit", prompt="Goal: port billing.")
    steps = [f"step {n}" for n in range(user_words.WINDOW + 100)]
    type_many(store_location, f"claude:{SESSIONS['claude']}", steps)
    agent.send("claude", "session_start_compact")
    agent.send("claude", "user_prompt_submit", prompt="typed after the compaction")
    line = run_line(agent.vybe)
    assert line.endswith(f"/{user_words.WINDOW + 101} of your words kept · 1 typed since"), line


@pytest.mark.sqlite_only("a SQLite file that is missing")
def test_bad_payloads_and_a_missing_store_still_give_a_line(vybe, tmp_path):
    assert run_line(vybe, b"{not json") == "vybe"
    vybe.ok("init")
    for bad in (b"{not json", [1, 2], {"session_id": 7}, {}, b""):
        assert run_line(vybe, bad) == "vybe", bad
    missing = {**vybe.env, "VYBE_DB_PATH": str(tmp_path / "gone" / "vybe.db")}
    assert run_line(vybe, PAYLOAD, missing) == "vybe"
    assert not (tmp_path / "gone").exists()


def test_the_installed_executable_prints_one_line_and_exits_0(vybe):
    vybe.ok("init")
    done = subprocess.run(
        [VYBE, "statusline"],
        input=json.dumps(PAYLOAD).encode(),
        capture_output=True,
        env=vybe.env,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode().startswith("vybe · no compaction yet")


@pytest.mark.parametrize("version", ["claude", "claude@2.1.332"])
def test_the_json_the_real_claude_code_pipes_gives_its_sessions_line(agent, tmp_path, version):
    """tests/fixtures/statusline/claude.json: what Claude Code 2.1.197 sent, captured by make
    e2e (claude@2.1.332.json: by make e2e-latest); the session it names is the one whose
    messages the line counts."""
    captured = Path(__file__).parents[1] / "fixtures" / "statusline" / f"{version}.json"
    payload = json.loads(captured.read_text())
    assert isinstance(payload["session_id"], str) and payload["session_id"]
    payload["session_id"] = SESSIONS["claude"]
    agent.transcript = tmp_path / "none.jsonl"
    for prompt in ("Goal: port billing.", "ok"):
        agent.send("claude", "user_prompt_submit", prompt=prompt)
    assert run_line(agent.vybe, payload) == (
        "vybe · no compaction yet · 2 of your messages in the record"
    )
