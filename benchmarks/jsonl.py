"""--jsonl against the JSON envelope of the same rows, on a store of a million events.

For each list command (a page of the event log at its start and at its end, a data query
of 1,000 rows), the same rows are asked for as one envelope and as JSON Lines: the time to
the first line on stdout, the time to the last, and the process's peak memory (its
maximum resident set, from wait4), medians of interleaved runs. A page is bounded (1,000
events or rows, or 1 MB of a query): what a consumer of a long log gains from
--jsonl is reading a row at a time while it follows the last line's cursor, and neither
shape's cost grows with the store.

    python benchmarks/jsonl.py [--events 1000000] [--runs 7] [--store PATH]

``--store PATH`` keeps the built store there and reuses it next time (a million events take
minutes to build).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compile_vybe

VYBE = str(Path(sys.executable).with_name("vybe"))
BATCH = 50_000


def build(db: Path, events: int) -> None:
    """A store of ``events`` events in the shapes agents log (progress notes on tasks)."""
    env = {**os.environ, "VYBE_DB_PATH": str(db)}
    subprocess.run([VYBE, "--agent", "bench", "init"], env=env, check=True, capture_output=True)
    conn = sqlite3.connect(db)
    kinds = ("progress", "task_created", "user_prompt", "commit", "tool_failure")
    for start in range(0, events, BATCH):
        rows = [
            (
                kinds[i % len(kinds)],
                f"agent-{i % 16}",
                f"task_{i // 40:08d}",
                f"step {i}: ran the migration for table t{i % 97} and checked its rows",
                f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:00:00.000000Z",
            )
            for i in range(start, min(start + BATCH, events))
        ]
        conn.executemany(
            "INSERT INTO events (kind, agent_name, task_id, message, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            rows,
        )
        conn.commit()
    conn.close()


def once(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Milliseconds to the first line and to the end, and the peak resident set in KiB."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdout is not None
    first_line = child.stdout.readline()
    first = (time.perf_counter() - start) * 1000
    child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    end = (time.perf_counter() - start) * 1000
    if child.returncode != 0 or not first_line:
        raise SystemExit(f"{argv} failed ({child.returncode})")
    return first, end, usage.ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--store", type=Path)
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory() as folder:
        db = args.store or Path(folder) / "vybe.db"
        if not db.exists():
            began = time.perf_counter()
            build(db, args.events)
            print(f"built {args.events:,} events in {time.perf_counter() - began:.1f} s")
        total = sqlite3.connect(db).execute("SELECT COUNT(*) FROM events").fetchone()[0]
        print(f"store: {total:,} events")
        env = {**os.environ, "VYBE_DB_PATH": str(db), "VYBE_CONFIG_DIR": folder}
        last_page = str(max(total - 1000, 0))
        queries = {
            "events, first page (1,000)": ["events", "--all", "--asc", "--limit", "1000"],
            "events, last page (1,000)": [
                "events", "--all", "--asc", "--limit", "1000", "--since", last_page,
            ],
            "data query (1,000 rows)": [
                "data", "query", "--limit", "1000",
                "--sql", "SELECT id, kind, message FROM events ORDER BY id",
            ],
        }  # fmt: skip
        print(f"{'':30} {'shape':9} {'first line ms':>14} {'last ms':>9} {'peak MiB':>9}")
        for name, words in queries.items():
            shapes = {"envelope": words, "jsonl": [*words, "--jsonl"]}
            samples: dict[str, list[tuple[float, float, int]]] = {s: [] for s in shapes}
            for _ in range(args.runs):
                for shape, argv in shapes.items():
                    samples[shape].append(once([VYBE, *argv], env))
            for shape, got in samples.items():
                first, end, peak = (statistics.median(column) for column in zip(*got, strict=True))
                print(f"{name:30} {shape:9} {first:14.1f} {end:9.1f} {peak / 1024:9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
