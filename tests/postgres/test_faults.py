"""Faults on a real server: restarted as a crash would (immediate shutdown) in the middle of
a write loop; a client killed in the middle of its transaction."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from vybe.actions import tasks
from vybe.clock import parse_duration
from vybe.store import open_store

WRITES = 150

# Notes with request ids, each retried under the same id until it is acknowledged; one JSON
# line per attempt: the request, the exit code and the error code.
WRITER = """
import json, sys, time
from vybe.cli.main import run
task, count = sys.argv[1], int(sys.argv[2])
for k in range(count):
    deadline = time.monotonic() + 60
    while True:
        code, text = run(["note", task, f"note {k}", "--request-id", f"w-{k}", "--agent", "w"])
        error = None if code == 0 else json.loads(text)["error_code"]
        print(json.dumps([k, code, error]), flush=True)
        if code == 0 or time.monotonic() > deadline:
            break
"""


def test_a_server_restarted_mid_loop_loses_no_acknowledged_write(vybe, pg_server):
    task = vybe.task("written through a crash")
    attempts = []
    with subprocess.Popen(
        [sys.executable, "-c", WRITER, task, str(WRITES)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=vybe.env,
        text=True,
    ) as writer:
        for line in writer.stdout:  # restart once a third of the writes were acknowledged
            attempts.append(json.loads(line))
            if len(attempts) == WRITES // 3:
                pg_server.restart_immediately()
        writer.wait()
        assert "Traceback" not in writer.stderr.read()
    acknowledged = {k for k, code, _ in attempts if code == 0}
    errors = {error for _, code, error in attempts if code != 0}
    assert acknowledged == set(range(WRITES))  # every write recovered after the restart
    assert errors == {"DB_UNAVAILABLE"}, attempts
    notes = vybe.sql("SELECT message FROM events WHERE kind = 'progress' ORDER BY id")
    assert [m for (m,) in notes] == [f"note {k}" for k in range(WRITES)]  # each exactly once


# A client that claims a task inside a transaction, says so, and hangs before committing.
HANGS = """
import sys
from vybe.store.postgres import PgStore
store = PgStore(sys.argv[1])
def body(conn):
    conn.execute("UPDATE tasks SET claimed_by = 'ghost', status = 'in_progress' WHERE id = ?",
                 (sys.argv[2],))
    conn.execute("INSERT INTO events (kind, agent_name, task_id, created_at)"
                 " VALUES ('task_claimed', 'ghost', ?, 't')", (sys.argv[2],))
    print("holding", flush=True)
    sys.stdin.read()
store.transact(body)
"""


def test_a_client_killed_mid_transaction_leaves_no_partial_write_and_no_lock(vybe):
    store = open_store(vybe.url, busy_timeout_ms=5000)
    task = tasks.create(store, "a", "create", title="t")["task"]
    events = vybe.event_count()
    with subprocess.Popen(
        [sys.executable, "-c", HANGS, vybe.url, task["id"]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=vybe.env,
    ) as client:
        assert client.stdout.readline().strip() == "holding"
        os.kill(client.pid, signal.SIGKILL)
        client.wait()
    claimed = tasks.claim(
        store, "b", "claim", task_id=task["id"], project_id=None, lease=parse_duration("5m")
    )
    assert claimed["task"]["claimed_by"] == "b" and claimed["task"]["claim_epoch"] == 1
    assert vybe.sql("SELECT COUNT(*) FROM events WHERE agent_name = 'ghost'") == [(0,)]
    assert vybe.event_count() == events + 1
    store.close()
