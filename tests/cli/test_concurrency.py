"""Many `vybe` processes at once: one claim winner, distinct --next winners, no lost write."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import VYBE

# N OS processes racing for the store: they get the machine to themselves (make test).
pytestmark = pytest.mark.serial

PROCESSES = 16


def run_all(vybe, commands: list[list[str]]) -> list[dict]:
    """Start every command before waiting on any, so they race for real."""
    started = [
        subprocess.Popen(
            [VYBE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=vybe.env, text=True
        )
        for argv in commands
    ]
    envelopes = []
    for process in started:
        out, err = process.communicate()
        assert "Traceback" not in err, err
        envelopes.append(json.loads(out))
    return envelopes


def test_sixteen_processes_claiming_one_task_make_exactly_one_winner(vybe):
    task_id = vybe.task("contested")
    envelopes = run_all(
        vybe, [["task", "claim", "--id", task_id, "--agent", f"w{n}"] for n in range(PROCESSES)]
    )
    winners = [e["data"]["task"]["claimed_by"] for e in envelopes if e["success"]]
    losers = [e for e in envelopes if not e["success"]]
    assert len(winners) == 1
    assert {e["error_code"] for e in losers} == {"ALREADY_CLAIMED"}
    assert {e["error_context"]["holder"] for e in losers} == set(winners)
    assert vybe.ok("task", "get", "--id", task_id)["task"]["claimed_by"] == winners[0]


def test_sixteen_processes_claiming_next_from_ten_tasks_take_each_task_once(vybe):
    ids = {vybe.task(f"t{n}") for n in range(10)}
    envelopes = run_all(
        vybe, [["task", "claim", "--next", "--agent", f"w{n}"] for n in range(PROCESSES)]
    )
    assert all(e["success"] for e in envelopes), envelopes
    claimed = [e["data"]["task"] for e in envelopes if e["data"]["task"]]
    assert sorted(t["id"] for t in claimed) == sorted(ids)
    assert len({t["claimed_by"] for t in claimed}) == 10
    assert len(vybe.ok("events", "--all", "--kind", "task_claimed")["events"]) == 10


# One OS process per agent, each running its mutations and their replays through the CLI's
# entry point: 16 processes race on the store, as 16 agents do.
WRITER = """
import json, sys
from vybe.cli.main import run
agent, task_id = sys.argv[1], sys.argv[2]
steps = [["note", task_id, f"{agent} step {k}", "--request-id", f"{agent}-{k}"] for k in range(3)]
steps.append(["task", "create", "--title", agent, "--request-id", f"{agent}-c"])
firsts = [run([*s, "--agent", agent]) for s in steps]
replays = [run([*s, "--agent", agent]) for s in steps]
print(json.dumps({"firsts": firsts, "replays": replays}))
"""


def test_sixteen_cli_writers_with_replays_log_each_event_exactly_once(vybe):
    task_id = vybe.task("shared")
    baseline = vybe.event_count()
    started = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, f"w{n}", task_id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=vybe.env,
            text=True,
        )
        for n in range(PROCESSES)
    ]
    for process in started:
        out, err = process.communicate()
        assert "Traceback" not in err, err
        runs = json.loads(out)
        assert [code for code, _ in runs["firsts"]] == [0, 0, 0, 0], runs
        assert runs["replays"] == runs["firsts"]
    assert vybe.event_count() == baseline + PROCESSES * 4


@pytest.mark.no_store
def test_sixteen_processes_creating_the_store_at_once_all_succeed(vybe):
    envelopes = run_all(vybe, [["task", "create", "--title", f"t{n}"] for n in range(PROCESSES)])
    assert [e for e in envelopes if not e["success"]] == []
    assert vybe.ok("task", "list", "--limit", "100")["count"] == PROCESSES
    assert vybe.ok("doctor")["ok"] is True
