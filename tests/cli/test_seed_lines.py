"""The seed's own command lines ("Proactive Usage", "After Plan Approval"), run as written
in a shell, placeholders filled with real ids: each answers success in one envelope."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import VYBE

PROACTIVE = (
    'vybe note {task} "copied 3 of 5 tables"',
    'vybe remember "rounding=half-up" --scope task --scope-id {task}',
    "vybe focus",
    'vybe block {task} --reason "the API answers 503" --failure',
    'vybe done {task} --note "tables moved"',
    'vybe push --json \'{{"task_id":"{other}","event":{{"kind":"progress",'
    '"message":"..."}},"task_status":{{"status":"completed"}}}}\'',
)
AFTER_PLAN = (
    'vybe task create --agent=claude --title="Step 1: ..." --desc="..."'
    " --request-id=plan_step_1_$(date +%s)",
    'vybe task create --agent=claude --title="Step 2: ..." --desc="..."'
    " --request-id=plan_step_2_$(date +%s)",
)


def _shell(vybe, line: str) -> dict:
    env = {**vybe.env, "PATH": f"{Path(VYBE).parent}{os.pathsep}{vybe.env.get('PATH', '')}"}
    done = subprocess.run(
        ["bash", "-c", line], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (line, done.stdout, done.stderr)
    [envelope] = [json.loads(text) for text in done.stdout.splitlines()]
    assert envelope["success"] is True, envelope
    return envelope["data"]


def test_the_seeds_proactive_usage_lines_run_as_written(vybe):
    ids = {"task": vybe.task("migrate"), "other": vybe.task("deploy")}
    vybe.ok("task", "begin", "--task-id", ids["task"])
    for line in PROACTIVE:
        _shell(vybe, line.format(**ids))
    assert vybe.ok("task", "get", "--task-id", ids["task"])["task"]["status"] == "completed"
    assert vybe.ok("task", "get", "--task-id", ids["other"])["task"]["status"] == "completed"
    memory = vybe.ok(
        "memory", "get", "-k", "rounding", "--scope", "task", "--scope-id", ids["task"]
    )
    assert memory["memory"]["value"] == "half-up"


def test_the_seeds_after_plan_approval_lines_run_as_written(vybe):
    made = [_shell(vybe, line)["task"] for line in AFTER_PLAN]
    assert [t["title"] for t in made] == ["Step 1: ...", "Step 2: ..."]
    assert {e["agent_name"] for e in vybe.ok("events", "--all")["events"]} == {"claude"}
