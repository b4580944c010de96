"""maintain: bounded housekeeping that keeps every live event reachable."""

from __future__ import annotations

import json
import sqlite3

import pytest


def _task_with_events(vybe, n: int) -> str:
    task = vybe.task("long")
    doc = {"task_id": task, "event": {"kind": "progress", "message": "step"}}
    for i in range(n - 2):
        vybe.sql(
            "INSERT INTO events (kind, agent_name, task_id, message, created_at)"
            " VALUES ('progress', 'a', ?, ?, '2026-01-01T00:00:00.000000Z')",
            (task, f"step {i}"),
        )
    vybe.ok("push", "--json", json.dumps(doc))
    return task


def _all_events(vybe, task: str, archived: bool = False) -> list[dict]:
    flags = ["--include-archived"] if archived else []
    return vybe.ok("events", "--task-id", task, "--limit", "1000", "--asc", *flags)["events"]


def test_a_long_task_log_is_folded_into_a_summary_and_the_newest_kept(vybe):
    task = _task_with_events(vybe, 30)
    before = _all_events(vybe, task)
    data = vybe.ok("maintain", "--summarize-threshold", "20", "--keep", "5")
    [summary] = data["summarized"]
    assert summary["archived"] == len(before) - 5
    live = _all_events(vybe, task)
    assert [e["id"] for e in live[:-1]] == [e["id"] for e in before[-5:]]
    assert live[-1]["kind"] == "events_summarized"
    meta = live[-1]["metadata"]
    assert (meta["from_id"], meta["to_id"]) == (before[0]["id"], before[-6]["id"])
    every = _all_events(vybe, task, archived=True)
    assert {e["id"] for e in before} <= {e["id"] for e in every}


def test_a_standing_handoff_outlives_folding_and_pruning(vybe, travel):
    task = vybe.task("handed")
    vybe.ok("task", "assign", "--id", task, "--to", "bob", agent="alice")
    for _ in range(30):
        vybe.sql(
            "INSERT INTO events (kind, agent_name, task_id, message, created_at)"
            " VALUES ('progress', 'a', ?, 'step', '2026-01-01T00:00:00.000000Z')",
            (task,),
        )
    vybe.ok("maintain", "--summarize-threshold", "20", "--keep", "5")
    travel(2)
    vybe.ok("maintain", "--retention", "1s")
    data = vybe.ok("resume", "--peek", agent="bob")
    assert (data["focus_task_id"], data["focus_rule"]) == (task, "rule2")


def test_a_short_log_is_left_alone(vybe):
    task = _task_with_events(vybe, 10)
    assert vybe.ok("maintain", "--summarize-threshold", "20", "--keep", "5")["summarized"] == []
    assert len(_all_events(vybe, task)) == 10


def test_work_per_call_is_bounded(vybe):
    for _ in range(3):
        _task_with_events(vybe, 25)
    first = vybe.ok("maintain", "--summarize-threshold", "20", "--keep", "5", "--max-tasks", "2")
    second = vybe.ok("maintain", "--summarize-threshold", "20", "--keep", "5", "--max-tasks", "2")
    assert (len(first["summarized"]), len(second["summarized"])) == (2, 1)


def test_only_archived_events_past_retention_are_pruned(vybe, travel):
    task = _task_with_events(vybe, 30)
    vybe.ok("maintain", "--summarize-threshold", "20", "--keep", "5", "--retention", "1h")
    assert vybe.ok("maintain", "--retention", "1h")["pruned"]["deleted"] == 0
    travel(2)
    data = vybe.ok("maintain", "--retention", "1s", "--prune-limit", "10")
    assert data["pruned"]["deleted"] == 10
    live = _all_events(vybe, task)
    assert len(live) == 6 and len(_all_events(vybe, task, archived=True)) == 6 + 30 - 5 - 10


def test_maintain_removes_expired_memory(vybe):
    vybe.ok("memory", "set", "-k", "tmp", "-v", "x", "--expires-in", "1h")
    vybe.sql("UPDATE memory SET expires_at = '2000-01-01T00:00:00.000000Z'")
    assert vybe.ok("maintain")["memory_gc"]["deleted"] == 1


def test_bad_maintain_input_is_a_json_error(vybe):
    assert vybe("maintain", "--keep", "300").error_code == "INVALID_INPUT"
    assert vybe("maintain", "--retention", "forever").error_code == "USAGE_ERROR"


@pytest.mark.sqlite_only("SQLite's query planner; PostgreSQL's plans: tests/postgres/test_store.py")
def test_assignee_and_archive_lookups_use_their_partial_indexes(vybe):
    vybe.ok("init")
    with sqlite3.connect(vybe.db_path) as conn:
        plans = {
            "assignee": conn.execute(
                "EXPLAIN QUERY PLAN SELECT id FROM events"
                " WHERE assignee_agent = ? AND id > ? ORDER BY id",
                ("a", 0),
            ).fetchall(),
            "archived": conn.execute(
                "EXPLAIN QUERY PLAN SELECT id FROM events WHERE archived_at < ?"
                " ORDER BY archived_at LIMIT 5",
                ("2026",),
            ).fetchall(),
        }
    assert "events_assignee" in str(plans["assignee"])
    assert "events_archived" in str(plans["archived"])


def test_maintain_with_a_request_id_replays_its_first_result_and_runs_nothing(vybe):
    task = _task_with_events(vybe, 30)
    flags = ("--summarize-threshold", "20", "--keep", "5", "--request-id", "round-1")
    first = vybe.ok("maintain", *flags)
    assert len(first["summarized"]) == 1
    _task_with_events(vybe, 30)  # another long log: a second run would fold it
    assert vybe.ok("maintain", *flags) == first
    assert [e["kind"] for e in _all_events(vybe, task)][-1] == "events_summarized"
    folded = vybe.sql("SELECT COUNT(*) FROM events WHERE kind = 'events_summarized'")
    assert folded == [(1,)]


def test_maintain_reusing_a_request_id_with_other_options_is_a_mismatch(vybe):
    vybe.ok("maintain", "--request-id", "round-1")
    vybe.refused("IDEMPOTENCY_MISMATCH", "maintain", "--keep", "7", "--request-id", "round-1")
