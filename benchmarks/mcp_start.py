"""How long a client waits for `vybe mcp`'s tools: a new server each run, the client sending
``initialize``, then on its answer ``notifications/initialized`` and ``tools/list`` as Claude
Code does, and a ``ping`` (which only the SDK answers: when it is serving); the time from
the start to each answer. ``--load N`` keeps N busy loops running meanwhile (a loaded
machine, where the SDK's import takes several seconds).

Run: .venv/bin/python benchmarks/mcp_start.py [--runs 10] [--load 2]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VYBE = str(Path(sys.executable).with_name("vybe"))
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
THEN = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 2, "method": "ping"},
]
ANSWERS = ("initialize", "tools/list", "ping (SDK)")


def one(env: dict[str, str]) -> list[float]:
    """Milliseconds from the start to the answers to ``initialize``, ``tools/list``, ``ping``."""
    started = time.perf_counter()
    proc = subprocess.Popen([VYBE, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    proc.stdin.flush()
    proc.stdout.readline()
    took = [(time.perf_counter() - started) * 1000]
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in THEN).encode())
    proc.stdin.flush()
    answers = []
    for _ in THEN[1:]:
        answers.append(json.loads(proc.stdout.readline()))
        took.append((time.perf_counter() - started) * 1000)
    proc.stdin.close()
    proc.wait()
    if [a.get("id") for a in answers] != [1, 2] or not answers[0]["result"]["tools"]:
        raise SystemExit(f"tools/list or ping failed: {answers!r:.300}")
    return took


def busy() -> None:
    while True:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--load", type=int, default=0, help="busy loops running meanwhile")
    args = parser.parse_args()
    loops = [multiprocessing.Process(target=busy, daemon=True) for _ in range(args.load)]
    for loop in loops:
        loop.start()
    try:
        with tempfile.TemporaryDirectory() as home:
            env = {**os.environ, "HOME": home, "VYBE_DB_PATH": f"{home}/vybe.db"}
            env["VYBE_CONFIG_DIR"] = f"{home}/config"
            subprocess.run([VYBE, "init"], env=env, check=True, capture_output=True)
            samples = [one(env) for _ in range(args.runs)]
    finally:
        for loop in loops:
            loop.terminate()
    for name, column in zip(ANSWERS, zip(*samples, strict=True), strict=True):
        print(
            f"{name:>12}: median {statistics.median(column):7.1f} ms, "
            f"max {max(column):7.1f} ms ({args.runs} runs, {args.load} busy loops)"
        )


if __name__ == "__main__":
    main()
