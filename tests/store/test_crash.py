"""A writer killed with SIGKILL mid-run: the store stays sound and no acknowledged write is lost."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys

import pytest

from vybe.actions import tasks
from vybe.store import SqliteStore

# N OS processes racing for the store: they get the machine to themselves (make test).
pytestmark = [
    pytest.mark.serial,
    pytest.mark.sqlite_only(
        "kill -9 of a writer of the SQLite file; on the server: tests/postgres/test_faults.py"
    ),
]

# Notes on one task in a tight loop; a line is printed only after its commit returned.
WRITER = """
import sys
from pathlib import Path
from vybe.actions import tasks
from vybe.store import SqliteStore, Store
store = SqliteStore(Path(sys.argv[1]))
name = sys.argv[3]
for k in range(int(sys.argv[4])):
    done = tasks.note(store, name, f"{name}-{k}", task_id=sys.argv[2], message=f"{name} {k}")
    print(done["event_id"], f"{name} {k}", flush=True)
"""


def start(db: str, task_id: str, name: str, count: int, errors: int = subprocess.PIPE):
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, db, task_id, name, str(count)],
        stdout=subprocess.PIPE,
        stderr=errors,
        text=True,
    )


def parse(text: str) -> list[tuple[int, str]]:
    """The acknowledgements in a writer's output; a line cut by the kill does not count."""
    complete = text.split("\n")[:-1]
    return [(int(line.split(" ", 1)[0]), line.split(" ", 1)[1]) for line in complete]


def test_killed_writers_leave_a_sound_store_with_every_acknowledged_write(tmp_path):
    db = tmp_path / "vybe.db"
    store = SqliteStore(db)
    task_id = tasks.create(store, "setup", "s", title="target")["task"]["id"]
    store.close()
    survivors = [start(str(db), task_id, f"live{n}", 150) for n in range(2)]
    victims = [start(str(db), task_id, f"doomed{n}", 100_000, subprocess.DEVNULL) for n in range(2)]
    acks = []
    for victim in victims:
        seen = "".join(victim.stdout.readline() for _ in range(40))
        victim.send_signal(signal.SIGKILL)
        assert victim.wait() == -signal.SIGKILL
        acks += parse(seen + victim.stdout.read())  # same buffer as readline: nothing skipped
        victim.stdout.close()
    for survivor in survivors:
        out, err = survivor.communicate()
        assert survivor.returncode == 0, err
        acks += parse(out)

    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        logged = dict(conn.execute("SELECT id, message FROM events"))
    finally:
        conn.close()
    assert all(logged.get(event_id) == message for event_id, message in acks)
    assert sum(1 for m in logged.values() if m.startswith("live")) == 300
