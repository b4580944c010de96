"""The PostgreSQL store, in one run on a server started here (pgserver's binaries, else the
system's; as root it runs as nobody), with the settings printed:

- 16 writers' commit rate through vybe on PostgreSQL as the store's owner (row-level
  security off) and as a team's member role (on), in alternating rounds, against 16
  processes making raw single-row inserts into PostgreSQL, against raw transactions of a
  mutation's shape (the same round trips, reads and writes, in hand-written SQL), against
  vybe on a store whose event ids are not kept in commit order (what that lock costs), and
  against vybe on SQLite;
- one writer's milliseconds a commit, as the owner and as a member;
- `claim --next` throughput with 16 claimers over a queue of tasks;
- `resume --peek` on 1M events on PostgreSQL against an empty store (goal: at most 2x);
- the hook path (`vybe hook run claude`, a prompt) on PostgreSQL, as the owner and as a
  member (goal for both member figures: under 1.10x the owner's), against a bare
  `python -c "import sqlite3"`.

Run: .venv/bin/python benchmarks/postgres.py [--count N] [--events N]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from _common import Run, compile_vybe, interleaved
from foundation import RAW_PAYLOAD, VYBE, WRITERS, commit_rate, vybe_writer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.postgres.server
from tests.postgres.server import running

from vybe.actions import resume as resumes
from vybe.actions import tasks
from vybe.store import open_store, teams

MEMBER = "bench_member"  # a team's role: what it runs, row-level security narrows
ROUNDS = 3  # owner and member alternate, so the machine's drift falls on both


def raw_pg_writer(url: str, n: int, count: int, start: multiprocessing.Event) -> None:
    """The floor: one 200-byte single-row insert per (autocommit) transaction."""
    import psycopg

    conn = psycopg.connect(url, autocommit=True)
    payload = "x" * RAW_PAYLOAD
    start.wait()
    for _ in range(count):
        conn.execute("INSERT INTO raw (writer, payload) VALUES (%s, %s)", (n, payload))
    conn.close()


# A transaction of a vybe mutation's shape in raw SQL, round trip by round trip (its mean
# over vybe_writer's cycle): BEGIN with the clock, the request id looked up, the task read,
# the task updated, its event inserted, the request id recorded, COMMIT.
SHAPED_TABLES = (
    "CREATE TABLE items (id INT PRIMARY KEY, version INT, payload TEXT)",
    "CREATE TABLE requests (writer INT, rid TEXT, result TEXT, PRIMARY KEY (writer, rid))",
)


def raw_shaped_writer(url: str, n: int, count: int, start: multiprocessing.Event) -> None:
    """The floor for a mutation's work: what any client pays for the same round trips."""
    import psycopg

    conn = psycopg.connect(url, autocommit=True)  # as the store's: its own BEGIN and COMMIT
    payload = "x" * RAW_PAYLOAD
    conn.execute("INSERT INTO items VALUES (%s, 0, %s) ON CONFLICT DO NOTHING", (n, payload))
    start.wait()
    for k in range(count):
        rid = f"writer{n}-{k}"
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT now()")
        conn.execute("SELECT result FROM requests WHERE writer = %s AND rid = %s", (n, rid))
        conn.execute("SELECT * FROM items WHERE id = %s", (n,)).fetchone()
        conn.execute("UPDATE items SET version = version + 1 WHERE id = %s", (n,))
        conn.execute("INSERT INTO raw (writer, payload) VALUES (%s, %s)", (n, payload))
        conn.execute("INSERT INTO requests VALUES (%s, %s, %s)", (n, rid, payload))
        conn.execute("COMMIT")
    conn.close()


def claimer(url: str, n: int, count: int, start: multiprocessing.Event) -> None:
    store = open_store(url)
    agent = f"claimer{n}"
    start.wait()
    for k in range(count):
        tasks.claim(
            store, agent, f"{agent}-{k}", task_id=None, project_id=None, lease=timedelta(hours=1)
        )
    store.close()


def database(server, name: str) -> str:
    server.admin(f"CREATE DATABASE {name}")
    open_store(server.url(name)).close()
    return server.url(name)


def as_member(url: str) -> str:
    """The URL of MEMBER, a member of the store's team ``default`` (so it sees the rows the
    owner sees, through the policies): the same store, with row-level security on."""
    store = open_store(url)
    teams.admin_grant(store, MEMBER, teams.DEFAULT, read_only=False)
    store.close()
    return url.replace("postgresql://postgres@", f"postgresql://{MEMBER}@", 1)


def owner_and_member_rates(server, count: int) -> tuple[float, float]:
    """The best commit rate of ROUNDS as the owner and as a member, rounds alternating,
    each on a fresh store."""
    owner, member = [], []
    for k in range(ROUNDS):
        owner.append(commit_rate(vybe_writer, database(server, f"owner{k}"), count))
        member.append(commit_rate(vybe_writer, as_member(database(server, f"member{k}")), count))
    return max(owner), max(member)


def one_writer_ms(url: str, count: int) -> float:
    """Milliseconds a mutation of one writer alone (vybe_writer's cycle, in this process):
    what the policies add to a commit, with no other writer's lock to wait behind."""
    start = multiprocessing.get_context("fork").Event()
    start.set()
    began = time.perf_counter()
    vybe_writer(url, 0, count, start)
    return (time.perf_counter() - began) * 1000 / count


def owner_and_member_ms(server, count: int) -> tuple[float, float]:
    """The best of ROUNDS of one_writer_ms as the owner and as a member, alternating."""
    owner, member = [], []
    for k in range(ROUNDS):
        owner.append(one_writer_ms(database(server, f"alone{k}"), count))
        member.append(one_writer_ms(as_member(database(server, f"alone_member{k}")), count))
    return min(owner), min(member)


def fill_events(url: str, events: int) -> None:
    """1M events, 10k tasks and 100k memories in a few statements on the server."""
    import psycopg

    with psycopg.connect(url) as conn:
        conn.execute(
            "INSERT INTO tasks (id, title, status, priority, created_at, updated_at)"
            " SELECT 'task_' || lpad(i::text, 6, '0'), 'task ' || i,"
            " CASE WHEN i %% 3 = 0 THEN 'completed' ELSE 'pending' END, i %% 7,"
            " '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'"
            " FROM generate_series(0, 9999) i",
            (),
        )
        conn.execute(
            "INSERT INTO events (id, kind, agent_name, task_id, message, created_at)"
            " SELECT i, 'progress', 'worker', 'task_' || lpad((i %% 10000)::text, 6, '0'),"
            " 'event ' || i || ' ' || repeat('x', 60), '2026-01-01T00:00:00.000000Z'"
            " FROM generate_series(1, %s) i",
            (events,),
        )
        conn.execute("SELECT setval('events_id_seq', %s)", (events,))
        conn.execute(
            "INSERT INTO memory (id, key, value, scope, scope_id, kind, access_count,"
            " created_at, updated_at) SELECT 'mem_' || i, 'key' || i, 'value ' || i,"
            " 'task', 'task_' || lpad((i %% 10000)::text, 6, '0'), 'fact', i %% 9,"
            " '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z'"
            " FROM generate_series(1, 100000) i",
            (),
        )
        conn.execute(
            "INSERT INTO agent_state (agent_name, last_seen_event_id, focus_task_id,"
            " last_active_at) VALUES ('bench', %s, 'task_000001', '2026-01-01T00:00:00Z')",
            (events - 100,),
        )
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def without_commit_order(server) -> str:
    """A store whose events are numbered without the lock that keeps their ids in commit
    order (held from an event's insert to its transaction's end, through the commit's
    flush): a measurement of what that lock costs the writers, never a store to keep."""
    import psycopg

    url = database(server, "unordered")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE OR REPLACE FUNCTION vybe_number_event() RETURNS trigger"
            " LANGUAGE plpgsql AS $$ BEGIN IF NEW.id IS NULL THEN"
            " NEW.id := nextval('events_id_seq'); END IF; RETURN NEW; END $$"
        )
    return url


def peek_ms(url: str, runs: int) -> float:
    store = open_store(url)
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        resumes.peek(store, "bench")
        samples.append((time.perf_counter() - started) * 1000)
    store.close()
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=200, help="commits per writer")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    compile_vybe()
    with running() as server, tempfile.TemporaryDirectory() as folder:
        print(f"{server.version}; settings: {json.dumps(server.settings)}")
        raw = database(server, "raw")
        server_admin = __import__("psycopg").connect(raw, autocommit=True)
        server_admin.execute(
            "CREATE TABLE raw (id BIGSERIAL PRIMARY KEY, writer INT, payload TEXT)"
        )
        for statement in SHAPED_TABLES:
            server_admin.execute(statement)
        server_admin.close()
        sqlite_path = str(Path(folder) / "vybe.db")
        open_store(sqlite_path).close()
        floor = commit_rate(raw_pg_writer, raw, args.count)
        shaped = commit_rate(raw_shaped_writer, raw, args.count)
        on_pg, on_pg_member = owner_and_member_rates(server, args.count)
        unordered = commit_rate(vybe_writer, without_commit_order(server), args.count)
        on_sqlite = commit_rate(vybe_writer, sqlite_path, args.count)
        print(f"16 writers, {args.count} commits each (commits/s):")
        print(f"  raw single-row inserts, PostgreSQL {floor:8.0f}")
        print(
            f"  raw transactions of a mutation's shape (7 round trips) {shaped:8.0f}"
            f"  {shaped / floor:.2f}x the raw floor"
        )
        print(
            f"  vybe on PostgreSQL                 {on_pg:8.0f}  {on_pg / floor:.2f}x the raw"
            f" floor, {on_pg / shaped:.2f}x raw transactions of its shape"
        )
        print(
            f"  vybe on PostgreSQL as a team's member {on_pg_member:8.0f}  row-level security"
            f" on: a commit costs {on_pg / on_pg_member:.2f}x the owner's (off)"
        )
        alone, alone_member = owner_and_member_ms(server, args.count)
        print(
            f"one writer alone: {alone:.2f} ms a commit as the owner, {alone_member:.2f} ms as"
            f" a member: {alone_member / alone:.2f}x"
        )
        print(
            f"  vybe on PostgreSQL, event ids not in commit order {unordered:8.0f}"
            f"  {unordered / floor:.2f}x the raw floor: what the commit-order lock costs"
        )
        ratio = on_pg / on_sqlite
        print(
            f"  vybe on SQLite                     {on_sqlite:8.0f}  PostgreSQL/SQLite {ratio:.2f}x"
        )

        queue = database(server, "queue")
        store = open_store(queue)
        for k in range(WRITERS * args.count // 4):
            tasks.create(store, "boss", f"t{k}", title=f"task {k}")
        store.close()
        claims = commit_rate(claimer, queue, args.count // 4)
        print(f"claim --next, 16 claimers: {claims:.0f} claims/s")

        empty, big = database(server, "empty"), database(server, "big")
        fill_events(big, args.events)
        small, large = peek_ms(empty, args.runs), peek_ms(big, args.runs)
        print(
            f"resume --peek in process: empty {small:.1f} ms, {args.events} events {large:.1f} ms"
        )
        print(f"  ratio {large / small:.2f}x")

        big_member = as_member(big)
        home = Path(folder)
        env = {**os.environ, "HOME": folder, "VYBE_DB_URL": big, "VYBE_CONFIG_DIR": str(home / "c")}
        env.pop("VYBE_DB_PATH", None)
        prompt = json.dumps(
            {
                "hook_event_name": "UserPromptSubmit",
                "prompt": "add a test",
                "session_id": "b",
                "cwd": folder,
                "transcript_path": "",
            }
        ).encode()
        figures = interleaved(
            {
                "python -c import sqlite3": Run([sys.executable, "-c", "import sqlite3"], env),
                "hook prompt on PostgreSQL": Run([VYBE, "hook", "run", "claude"], env, prompt),
                "hook prompt, a member": Run(
                    [VYBE, "hook", "run", "claude"], {**env, "VYBE_DB_URL": big_member}, prompt
                ),
                "resume --peek on PostgreSQL": Run(
                    [VYBE, "resume", "--peek", "--agent", "bench"], env
                ),
            },
            args.runs,
        )
        base = figures["python -c import sqlite3"]
        for name, ms in figures.items():
            print(f"{name:30} {ms:7.1f} ms  {ms / base:.2f}x")
        log = home / "c" / "hooks.log"
        if log.exists():
            print("hook errors were logged:\n" + log.read_text()[:2000])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
