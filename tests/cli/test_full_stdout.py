"""A stdout that cannot take the result (a full device, a closed descriptor): one line on
stderr says what the command did, the exit is 74 (docs/cli.md), and nothing else happens: a
read changes nothing, a write is done whole and its replay under the same request id prints
the first result. The agents' hook and the status line still exit 0, and quietly.

Real processes, stdout buffered as a shell gives it: the suite's own environment may set
PYTHONUNBUFFERED, which hides what a buffered stdout does as the interpreter exits."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from tests.conftest import VYBE

UNPRINTED = 74  # docs/cli.md: stdout could not take the result
FULL = "vybe: stdout could not take the result (No space left on device); "
READS = [
    ["task", "list"],
    ["status"],
    ["events", "--all"],
    ["resume", "--peek"],
    ["search", "words"],
    ["memory", "list"],
    ["schema"],
    ["doctor"],
    ["--help"],
]
FAILURES = [["nosuch"], ["task", "get", "--id", "task_none"], ["task", "create"]]
WRITES = [
    ["task", "create", "--title", "written once"],
    ["remember", "colour=blue"],
    ["task", "claim", "--next"],
    ["project", "create", "--name", "p1"],
]


def _buffered(vybe) -> dict[str, str]:
    return {k: v for k, v in vybe.env.items() if k != "PYTHONUNBUFFERED"}


def _into_full(vybe, *argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    with open("/dev/full", "wb") as full:
        return subprocess.run(
            [VYBE, *argv], env=_buffered(vybe), stdout=full, stderr=subprocess.PIPE,
            input=stdin, check=False, timeout=60,
        )  # fmt: skip


def _one_line(done: subprocess.CompletedProcess) -> str:
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1, lines  # no "Exception ignored in …", no traceback
    assert lines[0].endswith(f"; exit {UNPRINTED}")
    return lines[0]


@pytest.fixture
def filled(vybe):
    vybe.env["VYBE_AGENT"] = "a"
    vybe.ok("init")
    vybe.task("already there")
    return vybe


@pytest.mark.parametrize("argv", READS, ids=" ".join)
def test_a_read_into_a_full_stdout_says_so_once_exits_74_and_changes_nothing(filled, argv):
    before = filled.dump()
    done = _into_full(filled, *argv)
    assert done.returncode == UNPRINTED
    assert _one_line(done) == FULL + f"the command was done and changed nothing; exit {UNPRINTED}"
    assert filled.dump() == before


@pytest.mark.parametrize("argv", FAILURES, ids=" ".join)
def test_a_refused_command_into_a_full_stdout_says_its_exit_and_changes_nothing(filled, argv):
    before = filled.dump()
    code = filled(*argv).code
    done = _into_full(filled, *argv)
    assert done.returncode == UNPRINTED
    assert _one_line(done).startswith(FULL + f"the command failed (exit {code})")
    assert filled.dump() == before


@pytest.mark.parametrize("argv", WRITES, ids=" ".join)
def test_a_write_into_a_full_stdout_is_done_once_and_its_replay_prints_the_first_result(
    filled, argv
):
    """The write cannot wait for stdout: a full device shows only when written to, after the
    commit. It is done whole, and its request id (given or made) replays its result."""
    before = filled.dump()
    done = _into_full(filled, *argv, "--request-id", "req_full")
    assert done.returncode == UNPRINTED
    replay = f"run it again with --request-id req_full for its result; exit {UNPRINTED}"
    assert _one_line(done) == FULL + "the command was done: " + replay
    written = filled.dump()
    assert written != before
    first = filled.ok(*argv, "--request-id", "req_full")
    assert filled.dump() == written  # the replay wrote nothing more
    assert filled.ok(*argv, "--request-id", "req_full") == first


def test_a_write_without_a_request_id_names_the_one_it_was_made_under(filled):
    done = _into_full(filled, "task", "create", "--title", "named by its id")
    request_id = re.search(r"--request-id (\S+) for its result", _one_line(done)).group(1)
    tasks = filled.ok("task", "list")["tasks"]
    made = [t["id"] for t in tasks if t["title"] == "named by its id"]
    replayed = filled.ok("task", "create", "--title", "named by its id", "--request-id", request_id)
    assert [replayed["task"]["id"]] == made
    assert filled.ok("task", "list")["count"] == len(tasks)


def test_a_closed_stdout_is_said_the_same_way(filled):
    before = filled.dump()
    done = subprocess.run(
        [VYBE, "task", "list"], env=_buffered(filled), stderr=subprocess.PIPE, check=False,
        preexec_fn=lambda: os.close(1), timeout=60,
    )  # fmt: skip
    assert done.returncode == UNPRINTED
    assert "stdout could not take the result" in _one_line(done)
    assert filled.dump() == before


START = {"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"}
PROMPT = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "kept words"}


@pytest.mark.parametrize("line", [["hook", "run", "claude"], ["hook", "run", "codex"]])
def test_a_hook_whose_answer_cannot_be_printed_still_exits_0_quietly(filled, line):
    for payload in (START, PROMPT):
        done = _into_full(filled, *line, stdin=json.dumps(payload).encode())
        assert (done.returncode, done.stderr) == (0, b"")
    prompts = [e for e in filled.ok("events", "--all")["events"] if e["kind"] == "user_prompt"]
    assert len(prompts) == 1  # the agent's words were kept all the same


def test_the_status_line_into_a_full_stdout_exits_0_quietly(filled):
    done = _into_full(filled, "statusline", stdin=b"{}")
    assert (done.returncode, done.stderr) == (0, b"")
