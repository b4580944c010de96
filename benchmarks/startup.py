"""Start-up of every kind of command against a bare `python -c "import sqlite3"`, in one run
(goal: the hook path at most 2x, every other command at most 3x), and the time `vybe mcp`
takes to answer `initialize` (goal: 300 ms).

Run: .venv/bin/python benchmarks/startup.py [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Run, compile_vybe, interleaved

VYBE = str(Path(sys.executable).with_name("vybe"))
HOOK = json.dumps({"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt": "go on"})
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
# name -> (argv, goal as a multiple of the floor)
COMMANDS = {
    "hook run claude": (["hook", "run", "claude"], 2),
    "resume --peek": (["resume", "--peek"], 2),
    "resume": (["resume"], 3),
    "status": (["status"], 3),
    "task list": (["task", "list", "--limit", "5"], 3),
    "task create": (["task", "create", "--title", "bench"], 3),
    "note": (["note", "TASK", "progress"], 3),
    "memory get": (["memory", "get", "--key", "k"], 3),
    "events": (["events", "--limit", "5"], 3),
    "schema": (["schema"], 3),
    "task create --help": (["task", "create", "--help"], 3),
}


def initialize_ms(env: dict[str, str], runs: int) -> float:
    """Median time from starting `vybe mcp` to reading its answer to `initialize`."""
    line = (json.dumps(INITIALIZE) + "\n").encode()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.Popen(
            [VYBE, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        proc.stdin.write(line)
        proc.stdin.flush()
        answer = proc.stdout.readline()
        samples.append((time.perf_counter() - started) * 1000)
        proc.stdin.close()
        proc.wait()
        if b'"result"' not in answer:
            raise SystemExit(f"initialize failed: {answer[:300]!r}")
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "HOME": home,
            "VYBE_DB_PATH": f"{home}/vybe.db",
            "VYBE_CONFIG_DIR": f"{home}/config",
        }
        env.pop("VYBE_AGENT", None)
        subprocess.run([VYBE, "init"], env=env, check=True, capture_output=True)
        made = subprocess.run(
            [VYBE, "task", "create", "--title", "t"], env=env, check=True, capture_output=True
        )
        task_id = json.loads(made.stdout)["data"]["task"]["id"]
        subprocess.run([VYBE, "remember", "k=v"], env=env, check=True, capture_output=True)
        runs = {"floor": Run([sys.executable, "-c", "import sqlite3"], env)}
        for name, (argv, _goal) in COMMANDS.items():
            argv = [task_id if word == "TASK" else word for word in argv]
            stdin = HOOK.encode() if argv[0] == "hook" else b""
            runs[name] = Run([VYBE, *argv], env, stdin)
        figures = interleaved(runs, args.runs)
        floor = figures.pop("floor")
        print(f"floor (python -c 'import sqlite3'): {floor:.1f} ms, median of {args.runs}")
        for name, took in figures.items():
            goal = COMMANDS[name][1]
            ratio = took / floor
            verdict = "ok" if ratio <= goal else "OVER"
            print(f"{'vybe ' + name:>26}: {took:6.1f} ms  {ratio:.2f}x (goal {goal}x) {verdict}")
        init = initialize_ms(env, max(5, args.runs // 4))
        print(f"{'vybe mcp initialize':>26}: {init:6.1f} ms (goal 300 ms)")


if __name__ == "__main__":
    main()
