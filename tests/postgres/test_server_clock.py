"""On a server store the time is the server's: agents whose machines' clocks disagree stamp
rows and judge leases by one clock. ``VYBE_CLOCK_SKEW`` (test-only, beside VYBE_TEST_CLOCK=1)
puts an agent's machine clock off; the shared test offset (VYBE_CLOCK_OFFSET) still moves
every agent's time alike. The same skew on a SQLite store is that one machine's clock, out of
scope here (tests/cli/test_clock_offset.py shows the skew taking effect there)."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import UTC, datetime, timedelta

import psycopg

from tests.conftest import VYBE
from vybe import clock
from vybe.store.postgres import begin

HOUR = 3600
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


def agent(vybe, name: str, skew: float, *argv: str) -> dict:
    """``vybe argv`` as ``name``, in an OS process of its own whose machine clock is off by
    ``skew`` seconds: its envelope."""
    env = {**vybe.env, "VYBE_TEST_CLOCK": "1", "VYBE_CLOCK_SKEW": str(skew)}
    done = subprocess.run(
        [VYBE, *argv, "--agent", name], capture_output=True, text=True, env=env, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def off_by(text: str) -> timedelta:
    """How far a stored time is from the (server's and this machine's) real time now."""
    assert ISO.fullmatch(text), text
    return clock.parse_iso(text) - datetime.now(UTC)


def test_an_agent_an_hour_fast_cannot_take_a_claim_that_holds_by_the_server_clock(vybe):
    held = vybe.task("claimed by the agent whose clock is right")
    assert agent(vybe, "right", 0, "task", "claim", "--id", held, "--lease", "15m")["success"]
    taken = agent(vybe, "fast", HOUR, "task", "claim", "--id", held)
    assert taken["error_code"] == "ALREADY_CLAIMED", taken
    assert agent(vybe, "fast", HOUR, "task", "claim", "--next")["data"]["task"] is None


def test_an_agent_an_hour_fast_or_slow_leases_a_task_for_the_term_it_asked(vybe):
    for name, skew in (("fast", HOUR), ("slow", -HOUR)):
        task_id = vybe.task(f"claimed by the {name} agent")
        claim = agent(vybe, name, skew, "task", "claim", "--id", task_id, "--lease", "15m")
        task = claim["data"]["task"]
        assert abs(off_by(task["updated_at"])) < timedelta(minutes=1)
        assert timedelta(minutes=14) < off_by(task["lease_expires_at"]) <= timedelta(minutes=15)
        taken = agent(vybe, "right", 0, "task", "claim", "--id", task_id)
        assert taken["error_code"] == "ALREADY_CLAIMED", taken


def test_the_shared_test_offset_still_ends_a_lease_for_every_agent(vybe):
    task_id = vybe.task("t")
    agent(vybe, "right", 0, "task", "claim", "--id", task_id, "--lease", "15m")
    vybe.env["VYBE_CLOCK_OFFSET"] = str(16 * 60)
    taken = agent(vybe, "fast", HOUR, "task", "claim", "--id", task_id)["data"]["task"]
    assert (taken["claimed_by"], taken["claim_epoch"]) == ("fast", 2)
    assert timedelta(minutes=30) < off_by(taken["lease_expires_at"]) <= timedelta(minutes=31)


def test_a_transaction_stamps_every_row_with_one_reading_of_the_server_clock(vybe):
    vybe.env.update(VYBE_TEST_CLOCK="1", VYBE_CLOCK_SKEW=str(HOUR))
    task_id = vybe.task("t")
    claim = vybe.ok("task", "claim", "--id", task_id, "--lease", "15m", "--request-id", "r1")
    at = claim["task"]["updated_at"]
    stamps = vybe.sql(
        "SELECT (SELECT created_at FROM events WHERE id = ?),"
        " (SELECT created_at FROM idempotency WHERE request_id = 'r1'),"
        " (SELECT last_active_at FROM agent_state WHERE agent_name = ?)",
        (claim["event_id"], claim["task"]["claimed_by"]),
    )
    assert stamps == [(at, at, at)]
    lease = clock.parse_iso(claim["task"]["lease_expires_at"]) - clock.parse_iso(at)
    assert lease == timedelta(minutes=15)
    assert abs(off_by(at)) < timedelta(minutes=1)


def test_events_agents_write_with_clocks_an_hour_apart_are_in_commit_order_by_time(vybe):
    task_id = vybe.task("t")
    vybe.env["VYBE_TEST_CLOCK"] = "1"
    for skew in (0, HOUR, -HOUR, 0):
        vybe.env["VYBE_CLOCK_SKEW"] = str(skew)
        vybe.ok("note", task_id, f"skewed by {skew}")
    rows = vybe.sql("SELECT id, created_at FROM events WHERE kind = 'progress' ORDER BY id")
    assert [t for _, t in rows] == sorted(t for _, t in rows)
    assert all(abs(off_by(t)) < timedelta(minutes=1) for _, t in rows)


def test_a_memory_an_agent_an_hour_fast_reads_or_collects_expires_by_the_server_clock(vybe):
    vybe.ok("memory", "set", "-k", "soon", "-v", "x", "--expires-in", "30m")
    vybe.env.update(VYBE_TEST_CLOCK="1", VYBE_CLOCK_SKEW=str(HOUR))
    assert vybe.ok("memory", "gc")["deleted"] == 0
    assert vybe.ok("maintain")["memory_gc"]["deleted"] == 0
    assert vybe.ok("memory", "get", "-k", "soon")["memory"]["value"] == "x"


def test_the_reading_is_utc_whatever_the_session_time_zone(pg_server):
    # A session's own zone, so straight to the server: a pooler in transaction mode
    # refuses startup options (and keeps no session of a client's).
    url = pg_server.url("postgres")
    with psycopg.connect(url, autocommit=True, options="-c timezone=America/New_York") as raw:
        reading = begin(raw, "BEGIN")
        raw.execute("ROLLBACK")
    assert reading.tzinfo is UTC
    assert abs(reading - datetime.now(UTC)) < timedelta(minutes=1)


def test_an_agent_an_hour_fast_searching_the_last_half_hour_finds_what_was_just_written(vybe):
    """A duration counts back from the server's time, inside the search's snapshot (by the
    fast machine's clock, the last half hour would start half an hour from now)."""
    task_id = vybe.task("port billing")
    assert agent(vybe, "right", 0, "note", task_id, "the ledger rounding moved to cents")["success"]
    fast = agent(vybe, "fast", HOUR, "search", "ledger rounding", "--since", "30m")
    assert [h["source"] for h in fast["data"]["hits"]] == ["event"], fast
