"""Hooks on a big store: 1M events and 10k memories. Goals: each hook's p99 within 3x its
median, and a resume (SessionStart) writing at most 10 pages.

Run: .venv/bin/python benchmarks/hooks_1m.py [--runs 40] [--events 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import compile_vybe, report_hook_errors
from hooks import seed

VYBE = str(Path(sys.executable).with_name("vybe"))


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def timed(env: dict[str, str], stdin: bytes) -> float:
    started = time.perf_counter()
    subprocess.run(
        [VYBE, "hook", "run", "claude"], input=stdin, env=env, check=True, capture_output=True
    )
    return (time.perf_counter() - started) * 1000


def pages_written(env: dict[str, str], db: Path, stdin: bytes, runs: int) -> list[int]:
    """WAL frames each run adds, counted while this process holds the store open (so the
    hook is not its last connection and leaves the WAL in place), then checkpointed away."""
    keeper = sqlite3.connect(db)
    page = keeper.execute("PRAGMA page_size").fetchone()[0]
    counts = []
    try:
        for _ in range(runs):
            keeper.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            subprocess.run(
                [VYBE, "hook", "run", "claude"],
                input=stdin,
                env=env,
                check=True,
                capture_output=True,
            )
            wal = Path(f"{db}-wal")
            size = wal.stat().st_size if wal.exists() else 0
            counts.append(max(0, size - 32) // (page + 24))
    finally:
        keeper.close()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as folder:
        home = Path(folder)
        project = str(home / "proj")
        db = home / "vybe.db"
        env = {**os.environ, "HOME": folder, "VYBE_DB_PATH": str(db)}
        env["VYBE_CONFIG_DIR"] = str(home / "config")
        started = time.perf_counter()
        seed(env, db, args.events, args.memories, project)
        took = time.perf_counter() - started
        print(f"seeded {args.events} events, {args.memories} memories in {took:.0f} s")
        common = {"session_id": "bench", "cwd": project, "transcript_path": ""}
        payloads = {
            "SessionStart startup": {"hook_event_name": "SessionStart", "source": "startup"},
            "SessionStart resume": {"hook_event_name": "SessionStart", "source": "resume"},
            "UserPromptSubmit": {"hook_event_name": "UserPromptSubmit", "prompt": "add a test"},
            "Stop": {"hook_event_name": "Stop", "last_assistant_message": ""},
        }
        stdins = {n: json.dumps({**common, **p}).encode() for n, p in payloads.items()}
        samples: dict[str, list[float]] = {name: [] for name in stdins}
        for _ in range(3):  # warm up
            for stdin in stdins.values():
                timed(env, stdin)
        for _ in range(args.runs):
            for name, stdin in stdins.items():
                samples[name].append(timed(env, stdin))
        print(f"{'hook':24} median    p99   p99/median  ({args.runs} interleaved runs)")
        for name, values in samples.items():
            median = statistics.median(values)
            print(f"{name:24} {median:6.1f} {p99(values):6.1f}   {p99(values) / median:5.2f}x")
        pages = pages_written(env, db, stdins["SessionStart startup"], 5)
        print(f"pages a resume (SessionStart) writes: {pages}")
        report_hook_errors(home / "config")


if __name__ == "__main__":
    main()
