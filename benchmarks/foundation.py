"""Foundation costs, as ratios measured in one run:

- latency of `vybe status` and `vybe task list` on a store of 100k events and 10k tasks,
  against a bare `python -c "import sqlite3"` (goal: at most 2x);
- commit rate of 16 processes making task mutations through vybe, against 16 processes
  making raw BEGIN IMMEDIATE inserts (goal: at least 0.5x), twice: inside long-running
  processes (the store alone), and as agents run vybe, one `vybe` process per mutation
  against one `python -c` process per raw insert.

Run: .venv/bin/python benchmarks/foundation.py [--events N] [--tasks N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

from _common import Run, compile_vybe, interleaved

from vybe import clock
from vybe.actions import tasks
from vybe.store import SqliteStore, open_store

VYBE = shutil.which("vybe", path=str(Path(sys.executable).parent)) or "vybe"
AGENT = "bench"
WRITERS = 16
RAW_SQL = "INSERT INTO raw (writer, payload) VALUES (?, ?)"  # the floor: a 200-byte row
RAW_PAYLOAD = 200


def build(path: Path, events: int, task_count: int) -> None:
    """Fill a store with direct SQL in one transaction."""
    SqliteStore(path).close()
    at = clock.now_iso()
    statuses = ("pending", "pending", "in_progress", "completed", "blocked")
    pad = "x" * 60
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(
        "INSERT INTO tasks (id, title, status, priority, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [(f"task_{i:06d}", f"task {i}", statuses[i % 5], i % 7, at, at) for i in range(task_count)],
    )
    conn.executemany(
        "INSERT INTO events (kind, agent_name, task_id, message, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            ("progress", f"agent{i % 20}", f"task_{i % task_count:06d}", f"event {i} {pad}", at)
            for i in range(events)
        ],
    )
    conn.execute(
        "INSERT INTO agent_state (agent_name, focus_task_id, last_active_at) VALUES (?, ?, ?)",
        (AGENT, "task_000001", at),
    )
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()


def vybe_writer(path: str, n: int, count: int, start: multiprocessing.Event) -> None:
    """Task mutations with request ids: create, note, claim, set-status, done (on a SQLite
    file or, given a URL, a PostgreSQL server)."""
    store = open_store(path)
    agent = f"writer{n}"
    start.wait()
    task_id = None
    for k in range(count):
        rid = f"{agent}-{k}"
        step = k % 5
        if step == 0:
            task_id = tasks.create(store, agent, rid, title=f"{agent} {k}")["task"]["id"]
        elif step == 1:
            tasks.note(store, agent, rid, task_id=task_id, message="working on it")
        elif step == 2:
            tasks.claim(
                store, agent, rid, task_id=task_id, project_id=None, lease=timedelta(minutes=5)
            )
        elif step == 3:
            tasks.heartbeat(store, agent, rid, task_id=task_id, lease=timedelta(minutes=5))
        else:
            tasks.done(store, agent, rid, task_id=task_id, note="done")
    store.close()


def raw_writer(path: str, n: int, count: int, start: multiprocessing.Event) -> None:
    """The floor: one 200-byte insert per BEGIN IMMEDIATE transaction, same pragmas."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=5)
    conn.execute("PRAGMA synchronous=NORMAL")
    payload = "x" * RAW_PAYLOAD
    start.wait()
    for _ in range(count):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(RAW_SQL, (n, payload))
        conn.execute("COMMIT")
    conn.close()


def raw_event_writer(path: str, n: int, count: int, start: multiprocessing.Event) -> None:
    """A second floor: the same insert into vybe's own events table, with its indexes."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=5)
    conn.execute("PRAGMA synchronous=NORMAL")
    start.wait()
    for k in range(count):
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            "INSERT INTO events (kind, agent_name, task_id, message, created_at)"
            " VALUES ('progress', ?, ?, 'working on it', '2026-01-01T00:00:00.000000Z')",
            (f"raw{n}", f"task_{n}_{k // 5}"),
        )
        conn.execute("COMMIT")
    conn.close()


def commit_rate(target, path: Path, count: int) -> float:
    """Commits per second of WRITERS processes released together."""
    ctx = multiprocessing.get_context("fork")
    start = ctx.Event()
    procs = [ctx.Process(target=target, args=(str(path), n, count, start)) for n in range(WRITERS)]
    for p in procs:
        p.start()
    time.sleep(0.5)
    began = time.perf_counter()
    start.set()
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"a writer failed with exit code {p.exitcode}")
    return WRITERS * count / (time.perf_counter() - began)


def commit_rates(folder: Path, count: int) -> tuple[float, float, float]:
    """One round: raw inserts, raw event inserts, vybe mutations, each on a fresh store."""
    folder.mkdir()
    raw_db, events_db, vybe_db = folder / "raw.db", folder / "events.db", folder / "vybe.db"
    raw_store(raw_db)
    SqliteStore(events_db).close()
    SqliteStore(vybe_db).close()
    return (
        commit_rate(raw_writer, raw_db, count),
        commit_rate(raw_event_writer, events_db, count),
        commit_rate(vybe_writer, vybe_db, count),
    )


def pages_per_commit(target, path: Path, count: int = 500) -> float:
    """WAL frames (pages written) per commit of one writer. A reader held open from the start
    keeps the WAL from being reset, so its length counts every frame written."""
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    page = reader.execute("PRAGMA page_size").fetchone()[0]
    wal = Path(f"{path}-wal")
    before = wal.stat().st_size if wal.exists() else 0
    released = threading.Event()
    released.set()
    target(str(path), WRITERS, count, released)
    frames = (wal.stat().st_size - max(before, 32)) / (page + 24)
    reader.close()
    return frames / count


RAW_INSERT = f"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
conn.execute("PRAGMA synchronous=NORMAL")
conn.execute("BEGIN IMMEDIATE")
conn.execute({RAW_SQL!r}, (int(sys.argv[2]), "x" * {RAW_PAYLOAD}))
conn.execute("COMMIT")
"""


def cli_agent(env: dict, n: int, count: int) -> None:
    """One agent's task mutations, each its own `vybe` process with a request id."""
    agent_env = {**env, "VYBE_AGENT": f"agent{n}"}
    task_id = ""
    for k in range(count):
        step = k % 5
        command = (
            ["task", "create", "--title", f"agent{n} {k}"],
            ["note", task_id, "working on it"],
            ["task", "claim", "--id", task_id],
            ["task", "heartbeat", "--id", task_id],
            ["done", task_id, "--note", "done"],
        )[step]
        done = subprocess.run(
            [VYBE, *command, "--request-id", f"agent{n}-{k}"], env=agent_env, capture_output=True
        )
        if done.returncode != 0:
            raise SystemExit(f"{command} failed: {done.stdout[:300]!r}")
        if step == 0:
            task_id = json.loads(done.stdout)["data"]["task"]["id"]


def raw_agent(path: Path, n: int, count: int) -> None:
    for _ in range(count):
        subprocess.run([sys.executable, "-c", RAW_INSERT, str(path), str(n)], check=True)


def process_rate(agent, first_argument, count: int) -> float:
    """Commits per second of WRITERS agents each running ``count`` processes in turn."""
    began = time.perf_counter()
    with ThreadPoolExecutor(WRITERS) as pool:
        runs = [pool.submit(agent, first_argument, n, count) for n in range(WRITERS)]
        for run in runs:
            run.result()
    return WRITERS * count / (time.perf_counter() - began)


def raw_store(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE raw (id INTEGER PRIMARY KEY, writer INTEGER, payload TEXT)")
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--commits", type=int, default=1000, help="per writer process")
    parser.add_argument("--rounds", type=int, default=3, help="commit-rate rounds (median)")
    parser.add_argument("--processes", type=int, default=20, help="vybe processes per agent")
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory(prefix="vybe-bench-") as folder:
        big = Path(folder) / "big.db"
        started = time.perf_counter()
        build(big, args.events, args.tasks)
        print(
            f"built {args.events} events, {args.tasks} tasks"
            f" in {time.perf_counter() - started:.1f}s ({big.stat().st_size / 1e6:.0f} MB)"
        )
        env = {
            **os.environ,
            "VYBE_AGENT": AGENT,
            "VYBE_DB_PATH": str(big),
            "VYBE_CONFIG_DIR": folder,
        }
        figures = interleaved(
            {
                "bare": Run([sys.executable, "-c", "import sqlite3"], env),
                "status": Run([VYBE, "status"], env),
                "task list": Run([VYBE, "task", "list"], env),
            },
            args.runs,
        )
        bare = figures["bare"]
        print(f"{'python -c import sqlite3':>26}: {bare:6.1f} ms (median of {args.runs})")
        for name in ("status", "task list"):
            ratio = figures[name] / bare
            print(f"{'vybe ' + name:>26}: {figures[name]:6.1f} ms  {ratio:.2f}x bare (goal 2x)")

        base = Path(folder)
        rounds = [commit_rates(base / f"round{n}", args.commits) for n in range(args.rounds)]
        raw, raw_events, mutations = (statistics.median(r[k] for r in rounds) for k in range(3))
        print(
            f"{'raw BEGIN IMMEDIATE insert':>26}: {raw:8.0f} commits/s"
            f" ({WRITERS} processes x {args.commits}, median of {args.rounds} rounds)"
        )
        print(
            f"{'raw insert into events':>26}: {raw_events:8.0f} commits/s"
            f"  {raw_events / raw:.2f}x raw (one row into the table and indexes vybe writes)"
        )
        pages = [
            pages_per_commit(target, base / f"round0/{name}.db")
            for target, name in (
                (raw_writer, "raw"),
                (raw_event_writer, "events"),
                (vybe_writer, "vybe"),
            )
        ]
        ratios = ", ".join(f"{r[2] / r[0]:.2f}" for r in rounds)
        print(
            f"{'vybe task mutations':>26}: {mutations:8.0f} commits/s"
            f"  {mutations / raw:.2f}x raw (goal 0.5x; rounds {ratios}),"
            f" {mutations / raw_events:.2f}x raw events"
        )
        print(
            f"{'WAL pages per commit':>26}: raw {pages[0]:.1f}, raw events {pages[1]:.1f},"
            f" vybe {pages[2]:.1f} (each page is one frame written to the WAL)"
        )
        cli_db, cli_raw_db = base / "cli.db", base / "cli_raw.db"
        SqliteStore(cli_db).close()
        raw_store(cli_raw_db)
        raw_processes = process_rate(raw_agent, cli_raw_db, args.processes)
        cli = process_rate(cli_agent, {**env, "VYBE_DB_PATH": str(cli_db)}, args.processes)
        print(
            f"{'raw insert processes':>26}: {raw_processes:8.1f} commits/s"
            f" ({WRITERS} agents x {args.processes} `python -c` processes)"
        )
        print(
            f"{'vybe mutation processes':>26}: {cli:8.1f} commits/s"
            f"  {cli / raw_processes:.2f}x raw (goal 0.5x; one `vybe` process per mutation)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
