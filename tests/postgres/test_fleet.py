"""Two "hosts" sharing one server: agents in their own processes, each host with its own
HOME, config folder and working folder, as agents on two machines would be."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import VYBE

AGENTS_PER_HOST = 16
HOSTS = ("alpha", "beta")

# One agent: its mutations with request ids, then every one replayed; prints both.
AGENT = """
import json, sys
from vybe.cli.main import run
agent, shared = sys.argv[1], sys.argv[2]

def step(rid, *argv):
    code, text = run([*argv, "--agent", agent, "--request-id", f"{agent}-{rid}"])
    return [code, json.loads(text)]

firsts = [step("create", "task", "create", "--title", f"{agent}'s task")]
own = firsts[0][1]["data"]["task"]["id"]
steps = [
    ("note", "note", shared, f"{agent} was here"),
    ("remember", "memory", "set", "-k", f"seen_by_{agent}", "-v", "yes"),
    ("begin", "task", "begin", "--id", own),
    ("done", "done", own, "--note", "finished"),
    ("resume", "resume"),
]
firsts += [step(*s) for s in steps]
replays = [step("create", "task", "create", "--title", f"{agent}'s task")]
replays += [step(*s) for s in steps]
print(json.dumps({"agent": agent, "firsts": firsts, "replays": replays}))
"""


def host_env(vybe, tmp_path: Path, host: str) -> tuple[dict[str, str], Path]:
    home = tmp_path / host
    work = home / "work"
    work.mkdir(parents=True)
    env = {**vybe.env, "HOME": str(home), "VYBE_CONFIG_DIR": str(home / "config")}
    return env, work


@pytest.fixture
def hosts(vybe, tmp_path):
    return {host: host_env(vybe, tmp_path, host) for host in HOSTS}


def start(hosts, argvs: dict[str, list[list[str]]], script: str | None = None) -> list[dict]:
    """Start every process on every host before waiting on any, so they race for real."""
    started = []
    for host, commands in argvs.items():
        env, work = hosts[host]
        for argv in commands:
            command = [sys.executable, "-c", script, *argv] if script else [VYBE, *argv]
            started.append(
                subprocess.Popen(
                    command,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    env=env,
                    cwd=work,
                    text=True,
                )
            )
    results = []
    for process in started:
        out, err = process.communicate()
        assert "Traceback" not in err, err
        results.append(json.loads(out))
    return results


def test_sixteen_agents_per_host_log_each_mutation_once_and_replay_the_first_result(vybe, hosts):
    shared = vybe.task("shared by the fleet")
    baseline = vybe.event_count()
    runs = start(
        hosts,
        {h: [[f"{h}-{n}", shared] for n in range(AGENTS_PER_HOST)] for h in HOSTS},
        script=AGENT,
    )
    event_ids = []
    for run in runs:
        assert [code for code, _ in run["firsts"]] == [0] * 6, run
        assert run["replays"] == run["firsts"]
        event_ids += [envelope["data"]["event_id"] for _, envelope in run["firsts"][:5]]
    agents = len(HOSTS) * AGENTS_PER_HOST
    assert len(set(event_ids)) == 5 * agents
    assert vybe.event_count() == baseline + 5 * agents
    per_agent = dict(vybe.sql("SELECT agent_name, COUNT(*) FROM events GROUP BY agent_name"))
    assert all(per_agent[run["agent"]] == 5 for run in runs)
    assert vybe.sql("SELECT COUNT(*) FROM idempotency")[0][0] == 6 * agents + 1


def test_a_claim_race_across_hosts_has_one_winner(vybe, hosts):
    task_id = vybe.task("contested")
    envelopes = start(
        hosts,
        {
            h: [["task", "claim", "--id", task_id, "--agent", f"{h}-{n}"] for n in range(4)]
            for h in HOSTS
        },
    )
    winners = [e["data"]["task"]["claimed_by"] for e in envelopes if e["success"]]
    assert len(winners) == 1
    assert {e["error_code"] for e in envelopes if not e["success"]} == {"ALREADY_CLAIMED"}


def test_claim_next_across_hosts_gives_ten_tasks_ten_distinct_winners(vybe, hosts):
    ids = {vybe.task(f"t{n}") for n in range(10)}
    envelopes = start(
        hosts,
        {h: [["task", "claim", "--next", "--agent", f"{h}-{n}"] for n in range(8)] for h in HOSTS},
    )
    assert all(e["success"] for e in envelopes), envelopes
    claimed = [e["data"]["task"] for e in envelopes if e["data"]["task"]]
    assert sorted(t["id"] for t in claimed) == sorted(ids)
    assert len({t["claimed_by"] for t in claimed}) == 10


def test_an_agent_on_one_host_hands_a_task_to_an_agent_on_the_other(vybe, hosts):
    task_id = vybe.task("hand me over")
    [sent] = start(hosts, {"alpha": [["task", "begin", "--id", task_id, "--agent", "alice"]]})
    [assigned] = start(
        hosts, {"alpha": [["task", "assign", "--id", task_id, "--to", "bob", "--agent", "alice"]]}
    )
    [taken] = start(hosts, {"beta": [["resume", "--agent", "bob"]]})
    assert sent["success"] and assigned["success"], (sent, assigned)
    assert (taken["data"]["focus_task_id"], taken["data"]["focus_rule"]) == (task_id, "rule2")
