"""`vybe ui`'s pages on SQLite stores of 1k, 10k and 120k messages (benchmarks/search.py's
work-shaped messages, in sessions of 10,000), with 500 tasks in chains of dependencies and
10,000 events beside them; with ``--store postgres``, the same stores copied (`vybe store
copy`) onto a PostgreSQL server started here (tests/postgres/server.py) and served from it.

Per page: the time from request to the last byte over real HTTP on 127.0.0.1 (the server in
this process, each request opening its own read-only store as `vybe ui` does), p50 and p99.
Then, on the largest store: first contentful paint of the largest session in Debian's
Chromium (when /usr/bin/chromium and playwright are here), and the server's resident memory
before and after 1,000 page loads.

    python benchmarks/ui.py [--sizes 1000,10000,120000] [--rounds 50] [--store postgres]
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks.search, tests

from benchmarks.search import build

from vybe.cli.ui import read_only_opener
from vybe.store import SqliteStore, Store, copy, open_store
from vybe.ui.server import Viewer

PER_SESSION = 10_000
PAGES = {
    "sessions": "/",
    "sessions of an agent": "/?agent=claude",
    "sessions of a project": "/?project=/home/dev/p1",
    "session, first page": "/session?id=claude:s0",
    "session, middle page": "/session?id=claude:s0&after=5000",
    "tasks": "/tasks",
    "memory": "/memory",
    "events": "/events",
    "events of a task": "/events?task=t7",
    "search": "/search?q=ledger",
}


def fill_work(store: Store) -> None:
    """500 tasks (each waiting on the one before in chains of five), 10,000 events, 500
    memory entries; each session started by claude in one of three projects."""

    def body(conn) -> None:
        for n, (sid,) in enumerate(conn.execute("SELECT id FROM sessions ORDER BY id").fetchall()):
            conn.execute(
                "UPDATE sessions SET agent_name = 'claude', project_id = ? WHERE id = ?",
                (f"/home/dev/p{n % 3}", sid),
            )
        statuses = ("pending", "in_progress", "blocked", "completed")
        conn.executemany(
            "INSERT INTO tasks (id, title, status, priority, claimed_by, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, '2026-12-01T00:00:00Z', ?)",
            [
                (
                    f"t{n}",
                    f"task {n}",
                    statuses[n % 4],
                    n % 5,
                    "a" if n % 4 == 1 else None,
                    f"2026-12-01T00:{n % 60:02d}:00Z",
                )
                for n in range(500)
            ],
        )
        conn.executemany(
            "INSERT INTO task_dependencies (task_id, depends_on_task_id, created_at)"
            " VALUES (?, ?, 't')",
            [(f"t{n}", f"t{n - 1}") for n in range(500) if n % 5],
        )
        conn.executemany(
            "INSERT INTO events (kind, agent_name, task_id, message, created_at)"
            " VALUES (?, ?, ?, ?, '2026-12-01T00:00:00Z')",
            [("note", f"agent{n % 7}", f"t{n % 500}", f"event {n}") for n in range(10_000)],
        )
        conn.executemany(
            "INSERT INTO memory (id, key, value, scope, created_at, updated_at)"
            " VALUES (?, ?, ?, 'global', 't', 't')",
            [(f"m{n:04d}", f"key{n}", f"value {n}") for n in range(500)],
        )

    store.transact(body)


class Served:
    """A viewer on ``path`` in a thread, and a client of it."""

    def __init__(self, location: str) -> None:
        self.server = Viewer(("127.0.0.1", 0), read_only_opener(location))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.where = urlsplit(self.server.url)
        self.conn = http.client.HTTPConnection(self.where.hostname, self.where.port)

    def get(self, path: str) -> None:
        sep = "&" if "?" in path else "?"
        headers = {"Host": self.where.netloc}
        self.conn.request("GET", f"{path}{sep}token={self.server.token}", headers=headers)
        reply = self.conn.getresponse()
        body = reply.read()
        if reply.status != 200:
            raise SystemExit(f"{path}: {reply.status} {body[:200]!r}")

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def timed(served: Served, path: str, rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds + 3):
        start = time.perf_counter()
        served.get(path)
        times.append((time.perf_counter() - start) * 1000)
    times = sorted(times[3:])
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# The first contentful paint's time from the navigation's start, once Chromium reports it.
PAINTED = (
    "new Promise(done => new PerformanceObserver(list => {"
    " const fcp = list.getEntriesByName('first-contentful-paint')[0];"
    " if (fcp) done(fcp.startTime); }).observe({type: 'paint', buffered: true}))"
)


def first_paint(served: Served, folder: Path) -> float | None:
    """First contentful paint of the largest session's page in Chromium, in ms."""
    from tests.ui.browser import chromium, missing

    if missing():
        print(f"first paint: skipped ({missing()})")
        return None
    with chromium(folder / "profile") as context:
        tab = context.new_page()
        tab.goto(served.server.url)
        base = f"http://{served.where.netloc}"
        paints = []
        for _ in range(5):
            tab.goto(base + PAGES["session, first page"])
            paints.append(tab.evaluate(PAINTED))
    return statistics.median(paints)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,120000")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with contextlib.ExitStack() as stack:
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="vybe-ui-bench-"))
        server = None
        if args.store == "postgres":
            import psycopg
            from tests.postgres.server import running

            server = stack.enter_context(running())
            print(server.version)
        for messages in sizes:
            path = Path(folder) / f"ui{messages}.db"
            store = SqliteStore(path)
            took = build(store, messages, per_session=PER_SESSION)
            fill_work(store)
            location = str(path)
            if server is not None:
                server.admin(f"CREATE DATABASE ui{messages}")
                location = server.url(f"ui{messages}")
                target = open_store(location)
                copy.to_server(store, target)
                target.close()
                with psycopg.connect(location, autocommit=True) as conn:
                    conn.execute("ANALYZE")
            store.close()
            built = f"on {args.store} (built in {took:.0f} s)"
            print(f"\n{messages:,} messages {built}: page p50 / p99 ms")
            served = Served(location)
            for name, page in PAGES.items():
                p50, p99 = timed(served, page, args.rounds)
                print(f"  {name:22} {p50:7.1f} {p99:7.1f}")
            if messages == max(sizes):
                paint = first_paint(served, Path(folder))
                if paint is not None:
                    largest = min(messages, PER_SESSION)
                    print(f"first contentful paint, session of {largest:,}: {paint:.0f} ms")
                before = resident_mb()
                for n in range(1000):
                    served.get(list(PAGES.values())[n % len(PAGES)])
                print(
                    f"server memory: {before:.1f} MB before 1,000 page loads,"
                    f" {resident_mb():.1f} MB after"
                )
            served.stop()


if __name__ == "__main__":
    main()
