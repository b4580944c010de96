"""Two agents in their own processes adding opposite dependencies at once (A->B beside
B->A): the cycle check of one must see the other's edge, so exactly one of each pair
wins and the graph never holds a cycle."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.serial

PAIRS = 30

# One agent: each (task, on) in turn, as fast as it can; prints the error codes.
AGENT = """
import json, sys
from vybe.cli.main import run
codes = []
for task_id, on in json.loads(sys.argv[1]):
    code, text = run(["task", "depend", "--id", task_id, "--on", on, "--agent", sys.argv[2]])
    codes.append(json.loads(text).get("error_code"))
print(json.dumps(codes))
"""


def test_opposite_dependencies_added_at_once_never_make_a_cycle(vybe):
    pairs = [(vybe.task(f"a{n}"), vybe.task(f"b{n}")) for n in range(PAIRS)]
    forward = json.dumps(pairs)
    backward = json.dumps([(b, a) for a, b in pairs])
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", AGENT, edges, agent],
            env=vybe.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for edges, agent in ((forward, "ann"), (backward, "bob"))
    ]
    ann, bob = [json.loads(p.communicate()[0]) for p in racers]
    assert all({a, b} == {None, "DEPENDENCY_CYCLE"} for a, b in zip(ann, bob, strict=True)), (
        ann,
        bob,
    )
    both_ways = vybe.sql(
        "SELECT COUNT(*) FROM task_dependencies d JOIN task_dependencies e"
        " ON e.task_id = d.depends_on_task_id AND e.depends_on_task_id = d.task_id"
    )
    assert both_ways == [(0,)]
    assert vybe.sql("SELECT COUNT(*) FROM task_dependencies") == [(PAIRS,)]
