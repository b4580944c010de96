"""Hook latency: every event Claude Code sends (Stop importing a new turn of the transcript
each run) on a store of 100k events and 10k memories, in a session whose record already
holds 1,000 typed messages with their tool rounds (a compaction's choice reads its newest),
and `vybe statusline` on the same store, against a bare `python -c "import sqlite3"`
measured in the same run. Goal: at most 2x.

With ``--postgres`` the same store is copied onto a PostgreSQL server started here
(tests/postgres/server.py, its settings as a default install's: fsync and synchronous
commit on; trust authentication on 127.0.0.1, no TLS) and every hook runs on both stores,
interleaved, with where a hook's time goes on the server: a bare ``import psycopg``, that
import and one connection, a prompt with the local service switched off (the hook process
connects itself), and the time inside each hook process (capture mode). A server store's
hooks are run by the local service (vybe.cli.service), which the first of them starts.
Then agents typing at once on one machine (``--typists``, 8 by default): prompts a second
and each prompt's p50 and p99, through a service of one worker and of the default number,
as hook processes and as the service's requests alone.

Run: .venv/bin/python benchmarks/hooks.py [--runs 30] [--events 100000] [--memories 10000]
       [--typed 1000] [--instructions]   (also each command's instruction count under
       valgrind, if installed) [--postgres [--typists 8]]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _common import Run, at_once, compile_vybe, instructions, interleaved, report_hook_errors

VYBE = str(Path(sys.executable).with_name("vybe"))
NOW = "2026-08-01T10:00:00.000000Z"


def seed(env: dict[str, str], db: Path, events: int, memories: int, project: str) -> None:
    """A migrated store filled with rows directly (seeding through the CLI would take hours)."""
    # The agent named in config.yaml, as `vybe init --agent` sets one up: every hook reads
    # the config (its parse cached after the first).
    subprocess.run([VYBE, "init", "--agent", "claude"], env=env, check=True, capture_output=True)
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO events (kind, agent_name, project_id, message, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                (("progress", "user_prompt")[n % 7 == 0], f"a{n % 5}", project, f"event {n}", NOW)
                for n in range(events)
            ),
        )
        conn.executemany(
            "INSERT INTO memory (id, key, value, scope, scope_id, kind, pinned, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    f"memory_{n}",
                    f"key{n}",
                    f"value of memory {n}",
                    "project" if n % 2 else "global",
                    project if n % 2 else "",
                    ("fact", "lesson", "directive")[n % 3],
                    int(n % 97 == 0),
                    NOW,
                    NOW,
                )
                for n in range(memories)
            ),
        )
    conn.close()


# A long session's typed messages, in the proportions of real work: mostly instructions,
# a third of them setting a constraint, some acknowledgements, now and then a pasted log.
TYPED = (
    "now wire the {n}th endpoint into the router and run its tests",
    "never touch the billing schema; keep step {n} inside the api package",
    "ok",
    "the test for step {n} fails with: AssertionError: expected 200, got 500",
    "you must keep the public API stable while doing step {n}",
    "continue",
    "paste of the failing run {n}:\n" + "E   at frame 0x7f in handler()\n" * 40,
    "rename the helper from step {n} and update its callers",
    "use the existing retry wrapper, do not write a new one (step {n})",
)


def seed_session(db: Path, session: str, typed: int) -> None:
    """``typed`` messages of the person in the hooks' record session, each followed by five
    tool rounds and a reply, as a long session's record holds them."""
    conn = sqlite3.connect(db)
    rows, seq = [], 0
    for n in range(typed):
        shapes = [("user", "prompt_hook", TYPED[n % len(TYPED)].format(n=n), None)]
        for k in range(5):
            call = json.dumps(
                {
                    "tool_calls": [
                        {
                            "id": f"c{n}.{k}",
                            "name": "Bash",
                            "arguments": {"command": f"pytest -k step{n}_{k}"},
                        }
                    ]
                }
            )
            shapes.append(("assistant", "assistant", "", call))
            result = json.dumps({"tool_call_id": f"c{n}.{k}", "name": "Bash"})
            shapes.append(("tool", "Bash", f"{k} passed, 1 failed in 0.{k}s", result))
        shapes.append(("assistant", "assistant", f"step {n}: done, one test left", None))
        for kind, source, text, data in shapes:
            seq += 1
            rows.append((session, seq, kind, source, text, data, len(text) // 4 + 1, NOW))
    with conn:
        conn.execute("INSERT INTO sessions (id, created_at) VALUES (?, ?)", (session, NOW))
        conn.executemany(
            "INSERT INTO messages (session_id, context_seq, type, source, content_text,"
            " content_json, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.close()


class Transcript:
    """A Claude transcript that gains one turn (the prompt, the reply) before each Stop."""

    def __init__(self, path: Path, session: str) -> None:
        self.path, self.session, self.turns = path, session, 0
        path.write_text("")

    def add_turn(self) -> None:
        self.turns += 1
        n, base = self.turns, {"sessionId": self.session, "isSidechain": False}
        user = {**base, "type": "user", "uuid": f"u{n}", "message": {"content": f"step {n}"}}
        content = [{"type": "text", "text": f"done with step {n}"}]
        reply = {"id": f"msg_{n}", "role": "assistant", "content": content}
        lines = [user, {**base, "type": "assistant", "uuid": f"a{n}", "message": reply}]
        with self.path.open("a") as handle:
            handle.write("".join(json.dumps(line) + "\n" for line in lines))


def hook_runs(env: dict[str, str], home: Path, project: str, label: str) -> dict[str, Run]:
    """Every hook and the status line on the store ``env`` names, ``label`` after each name."""
    common = {"session_id": "bench", "cwd": project, "transcript_path": ""}
    transcript = Transcript(home / f"transcript{label.replace(' ', '-')}.jsonl", "bench")
    turn = {"transcript_path": str(transcript.path)}
    payloads = {
        "UserPromptSubmit": {"hook_event_name": "UserPromptSubmit", "prompt": "add a test"},
        "SessionStart startup": {"hook_event_name": "SessionStart", "source": "startup"},
        "SessionStart compact": {"hook_event_name": "SessionStart", "source": "compact"},
        "Stop (a new turn)": {"hook_event_name": "Stop", **turn},
        "PreCompact": {"hook_event_name": "PreCompact", "trigger": "auto"},
        "SessionEnd": {"hook_event_name": "SessionEnd", "reason": "other", **turn},
    }
    runs = {}
    for name, payload in payloads.items():
        stdin = json.dumps({**common, **payload}).encode()
        before = transcript.add_turn if name.startswith("Stop") else None
        runs[name + label] = Run([VYBE, "hook", "run", "claude"], env, stdin, before)
    runs["statusline" + label] = Run([VYBE, "statusline"], env, json.dumps(common).encode())
    return runs


@contextmanager
def server_copy(home: Path, db: Path, env: dict[str, str]) -> Iterator[tuple[dict, str]]:
    """The SQLite store ``db`` copied onto a PostgreSQL server started here: the
    environment that selects it (its own config folder, hooks captured) and the server's
    version and settings."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.postgres.server
    from tests.postgres.server import running

    from vybe.store import SqliteStore, copy
    from vybe.store.postgres import PgStore

    with running() as server:
        server.admin("CREATE DATABASE hooks")
        url = server.url("hooks")
        source, target = SqliteStore(str(db)), PgStore(url)
        copy.to_server(source, target)
        source.close()
        target.conn.raw.execute("VACUUM ANALYZE")
        target.close()
        pg_env = {**env, "VYBE_DB_URL": url, "VYBE_CONFIG_DIR": str(home / "pgconfig")}
        pg_env.pop("VYBE_DB_PATH")
        subprocess.run([VYBE, "init", "--agent", "claude"], env=pg_env, check=True)
        pg_env["VYBE_HOOK_CAPTURE"] = str(home / "captured")
        yield pg_env, f"{server.version}; settings: {json.dumps(server.settings)}"


def handler_ms(folder: Path) -> dict[str, float]:
    """The median time inside each captured hook, by event (its imports, connection and
    queries, without the interpreter's start and end)."""
    times: dict[str, list[float]] = {}
    timings = folder / "timings.jsonl"
    for line in timings.read_text().splitlines() if timings.exists() else ():
        entry = json.loads(line)
        times.setdefault(entry["event"], []).append(entry["ms"])
    return {event: statistics.median(ms[3:] or ms) for event, ms in times.items()}


def driver_runs(env: dict[str, str]) -> dict[str, Run]:
    """The server path's fixed costs, each a process of its own: psycopg's import, then that
    import and one connection to the store's server."""
    url = env["VYBE_DB_URL"]
    connect = f"import psycopg; psycopg.connect({url!r}).close()"
    return {
        "python -c import psycopg": Run([sys.executable, "-c", "import psycopg"], env),
        "  + one connection": Run([sys.executable, "-c", connect], env),
    }


def typing_at_once(env: dict[str, str], project: str, typists: int, direct: bool, tag: str) -> str:
    """``typists`` agents typing 20 prompts each one after another, all at once, through
    the service this environment starts: prompts a second, p50 and p99. Each prompt is a
    hook process, or with ``direct`` the request that process would send (the service's own
    capacity, without the processes' start competing for the machine). ``tag`` makes each
    run's sessions new: a prompt sent again under its invocation would only be replayed."""
    from vybe.integrations.hooks import service_link

    took: list[float] = []

    def typist(n: int) -> None:
        for k in range(20):
            payload = {"hook_event_name": "UserPromptSubmit", "prompt": f"step {k} of {n}"}
            raw = json.dumps(payload | {"session_id": f"typist{n}-{tag}", "cwd": project})
            start = time.perf_counter()
            if direct:
                request = {"kind": "hook", "env": env, "cwd": project, "raw": raw}
                reply = service_link.ask(request | {"invocation": f"{n}_{k}_{tag}"})
                assert reply is not None and "answer" in reply, reply
            else:
                subprocess.run([VYBE, "hook", "run", "claude"], input=raw.encode(), env=env)
            took.append(time.perf_counter() - start)

    subprocess.run([VYBE, "hook", "run", "claude"], input=b"{}", env=env)  # starts the service
    time.sleep(2.0)  # its start (imports) done
    wall = at_once([threading.Thread(target=typist, args=(n,)) for n in range(typists)])
    took.sort()
    p50, p99 = took[len(took) // 2], took[int(len(took) * 0.99)]
    return f"{len(took) / wall:6.1f} prompts/s, p50 {p50 * 1000:4.0f} ms, p99 {p99 * 1000:4.0f} ms"


def concurrency(env: dict[str, str], home: Path, project: str, typists: int) -> None:
    """``typing_at_once`` through a service of one worker and one of the default number
    (each its own config folder, so its own service), by hook processes and direct."""
    from vybe.cli import service

    print(f"{typists} agents typing at once (20 prompts each) through the local service:")
    for workers in (1, service.WORKERS):
        folder = home / f"pgconfig-{workers}"
        shutil.copytree(env["VYBE_CONFIG_DIR"], folder, dirs_exist_ok=True)
        here = {**env, "VYBE_CONFIG_DIR": str(folder), "VYBE_SERVICE_WORKERS": str(workers)}
        here.pop("VYBE_HOOK_CAPTURE", None)
        saved = dict(os.environ)
        os.environ.update(here)  # the service this environment names (service_link reads it)
        try:
            for direct, how in ((False, "hook processes"), (True, "requests alone")):
                figures = typing_at_once(here, project, typists, direct, f"{workers}{how[0]}")
                print(f"  {workers} worker(s), {how:14} {figures}")
        finally:
            os.environ.clear()
            os.environ.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--typed", type=int, default=1000)
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--postgres", action="store_true", help="also on a PostgreSQL server")
    parser.add_argument("--typists", type=int, default=8, help="agents typing at once (pg)")
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        project = str(home / "proj")
        db = home / "vybe.db"
        env = {
            **os.environ,
            "HOME": folder,
            "VYBE_DB_PATH": str(db),
            "VYBE_CONFIG_DIR": str(home / "config"),
        }
        seed(env, db, args.events, args.memories, project)
        seed_session(db, "claude:bench", args.typed)
        runs = {"python -c import sqlite3": Run([sys.executable, "-c", "import sqlite3"], env)}
        runs.update(hook_runs(env, home, project, ""))
        if args.postgres:
            with server_copy(home, db, env) as (pg_env, server):
                runs.update(hook_runs(pg_env, home, project, " (pg)"))
                direct = {**pg_env, "VYBE_SERVICE": "off"}  # as before the local service
                prompt = runs["UserPromptSubmit (pg)"]
                runs["UserPromptSubmit (pg, no service)"] = prompt._replace(env=direct)
                runs.update(driver_runs(pg_env))
                print(server)
                measure(args, runs)
                inside = handler_ms(home / "captured")
                print("inside the hook process on PostgreSQL (after its start), median:")
                for event, ms in inside.items():
                    print(f"  {event:26} {ms:7.1f} ms")
                concurrency(pg_env, home, project, args.typists)
        else:
            measure(args, runs)
        report_hook_errors(home / "config")
        report_hook_errors(home / "pgconfig")


def measure(args: argparse.Namespace, runs: dict[str, Run]) -> None:
    """Print each command's median wall time against the floor (and its instructions)."""
    figures = interleaved(runs, args.runs)
    base = figures["python -c import sqlite3"]
    print(
        f"store: {args.events} events, {args.memories} memories, a session of"
        f" {args.typed} typed messages (with their tool rounds);"
        f" median of {args.runs} interleaved runs; load average {os.getloadavg()[0]:.1f}"
    )
    for name, ms in figures.items():
        print(f"{name:33} {ms:7.1f} ms  {ms / base:.2f}x")
    counts = instructions(runs) if args.instructions else None
    if counts:
        floor = counts["python -c import sqlite3"]
        print("instructions (callgrind), one run each:")
        for name, count in counts.items():
            print(f"{name:33} {count / 1e6:7.1f} M   {count / floor:.2f}x")


if __name__ == "__main__":
    main()
