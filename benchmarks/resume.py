"""Resume cost: a store of 1M events, 100k memories and 10k tasks against an empty one, and
`resume --peek` against a bare `python -c "import sqlite3"`. Goals: both ratios at most 2x.

Run: .venv/bin/python benchmarks/resume.py [--events N] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import Run, compile_vybe, interleaved

from vybe import clock
from vybe.actions import resume as resumes
from vybe.store import SqliteStore

VYBE = shutil.which("vybe", path=str(Path(sys.executable).parent)) or "vybe"
AGENT = "bench"
KINDS = ["progress", "progress", "progress", "tool_failure", "user_prompt", "reasoning"]


def _tasks(n: int, projects: list[str], at: str) -> list[tuple]:
    rows = []
    for i in range(n):
        status = "completed" if i % 3 == 0 else "pending"
        project = projects[i % len(projects)] if i % 10 else None
        rows.append((f"task_{i:06d}", f"task {i}", status, i % 7, project, at, at))
    return rows


def _events(n: int, tasks: list[tuple], at: str) -> list[tuple]:
    rng = random.Random(1)
    rows = []
    for i in range(n):
        task = tasks[rng.randrange(len(tasks))]
        kind = KINDS[i % len(KINDS)]
        meta = '{"intent": "try", "approach": "bisect"}' if kind == "reasoning" else None
        rows.append((kind, "worker", task[0], task[4], f"event {i} " + "x" * 60, meta, at))
    return rows


def _memories(n: int, tasks: list[tuple], projects: list[str], at: str) -> list[tuple]:
    rows = []
    for i in range(n):
        slot = i % 50
        if slot == 0:
            scope, scope_id = "global", ""
        elif slot < 5:
            scope, scope_id = "project", projects[i % len(projects)]
        elif slot < 35:
            scope, scope_id = "task", tasks[i % len(tasks)][0]
        else:
            scope, scope_id = "agent", f"agent{i % 20}"
        kind = ("fact", "fact", "lesson", "directive")[i % 4] if scope == "global" else "fact"
        rows.append((f"mem_{i:07d}", f"key{i}", f"value {i}", scope, scope_id, kind, i % 9, at, at))
    return rows


def build(path: Path, events: int, memories: int, tasks: int) -> None:
    """Fill a store with direct SQL in one transaction (seconds, not minutes)."""
    SqliteStore(path).close()
    at = clock.now_iso()
    projects = [f"/srv/project{i}" for i in range(10)]
    task_rows = _tasks(tasks, projects, at)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)",
        [(p, p.rsplit("/", 1)[-1], at) for p in projects],
    )
    conn.executemany(
        "INSERT INTO tasks (id, title, status, priority, project_id, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        task_rows,
    )
    conn.executemany(
        "INSERT INTO events (kind, agent_name, task_id, project_id, message, metadata,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        _events(events, task_rows, at),
    )
    conn.executemany(
        "INSERT INTO memory (id, key, value, scope, scope_id, kind, access_count, created_at,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        _memories(memories, task_rows, projects, at),
    )
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()


def place_agent(path: Path, focus: str | None, behind: int = 100) -> None:
    """The benchmark agent: focused on a task, its cursor ``behind`` events from the head."""
    conn = sqlite3.connect(path, isolation_level=None)
    head = conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0]
    conn.execute(
        "INSERT INTO agent_state (agent_name, last_seen_event_id, focus_task_id,"
        " focus_project_id, last_active_at) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (agent_name) DO UPDATE SET last_seen_event_id = excluded.last_seen_event_id,"
        " focus_task_id = excluded.focus_task_id",
        (AGENT, max(0, head - behind), focus, "/srv/project1" if focus else None, clock.now_iso()),
    )
    conn.close()


def in_process(path: Path, runs: int) -> float:
    store = SqliteStore(path)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        resumes.peek(store, AGENT)
        samples.append((time.perf_counter() - start) * 1000)
    store.close()
    return statistics.median(samples)


def plans(path: Path) -> list[str]:
    """Each query a peek runs on the big store, with its time and any full scan in its plan."""
    store = SqliteStore(path)
    statements: list[str] = []
    store.conn.set_trace_callback(statements.append)
    resumes.peek(store, AGENT)
    store.conn.set_trace_callback(None)
    report = []
    for sql in statements:
        if not sql.lstrip().upper().startswith("SELECT"):
            continue
        start = time.perf_counter()
        store.conn.execute(sql).fetchall()
        took = (time.perf_counter() - start) * 1000
        plan = [r[-1] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql)]
        scans = [d for d in plan if d.startswith("SCAN ") and " USING " not in d and "(" not in d]
        report.append(f"{took:6.2f} ms {'FULL SCAN ' if scans else ''}{' '.join(sql.split())[:80]}")
    store.close()
    return sorted(report, reverse=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory(prefix="vybe-bench-") as folder:
        big, empty = Path(folder) / "big.db", Path(folder) / "empty.db"
        start = time.perf_counter()
        build(big, args.events, args.memories, args.tasks)
        print(
            f"built {args.events} events, {args.memories} memories, {args.tasks} tasks"
            f" in {time.perf_counter() - start:.1f}s ({big.stat().st_size / 1e6:.0f} MB)"
        )
        SqliteStore(empty).close()
        focus = "task_000001"
        env = {**os.environ, "VYBE_AGENT": AGENT, "VYBE_CONFIG_DIR": folder}
        runs = {"bare": Run([sys.executable, "-c", "import sqlite3"], env)}
        for name, path, task in (("big", big, focus), ("empty", empty, None)):
            run_env = {**env, "VYBE_DB_PATH": str(path)}
            place_agent(path, task)
            runs[f"{name} peek"] = Run([VYBE, "resume", "--peek"], run_env)
            runs[f"{name} resume"] = Run(
                [VYBE, "resume"], run_env, before=lambda p=path, t=task: place_agent(p, t)
            )
        timed = interleaved(runs, args.runs)
        bare = timed["bare"]
        figures = {tuple(name.split(" ", 1)): ms for name, ms in timed.items() if name != "bare"}
        for name, path in (("big", big), ("empty", empty)):
            figures[name, "in-process peek"] = in_process(path, args.runs)
        for what in ("peek", "resume", "in-process peek"):
            b, e = figures["big", what], figures["empty", what]
            goal = "" if what.startswith("in-process") else " (goal 2x)"
            print(f"{what:>16}: big {b:7.1f} ms  empty {e:7.1f} ms  ratio {b / e:.2f}x{goal}")
        peek = figures["big", "peek"]
        print(
            f"{'bare python':>16}: {bare:7.1f} ms; resume --peek (big) / bare ="
            f" {peek / bare:.2f}x (goal 2x)"
        )
        print("slowest queries of a peek on the big store:")
        for line in plans(big)[:5]:
            print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
