"""push gains its memories part, in the same all-or-nothing transaction."""

from __future__ import annotations

import json


def test_push_writes_event_memories_and_status_together(vybe):
    task = vybe.task("t")
    doc = {
        "task_id": task,
        "event": {"kind": "progress", "message": "found the cause"},
        "memories": [
            {"key": "cause", "value": "race in the cache", "scope": "task", "scope_id": task},
            {"key": "retries", "value": 3},
        ],
        "task_status": {"status": "completed"},
    }
    data = vybe.ok("push", "--json", json.dumps(doc))
    assert [m["key"] for m in data["memories"]] == ["cause", "retries"]
    entry = vybe.ok("memory", "get", "-k", "retries")["memory"]
    assert entry["value_type"] == "number" and entry["source_event_id"] == data["event_id"]


def test_a_bad_memory_fails_the_whole_push(vybe):
    task = vybe.task("t")
    doc = {
        "task_id": task,
        "event": {"kind": "progress", "message": "m"},
        "memories": [{"key": "ok", "value": "v"}, {"key": "bad", "value": "v", "kind": "opinion"}],
    }
    before = len(vybe.ok("events", "--all")["events"])
    assert vybe("push", "--json", json.dumps(doc)).error_code == "INVALID_INPUT"
    assert len(vybe.ok("events", "--all")["events"]) == before
    assert vybe.ok("memory", "list")["count"] == 0


def test_unknown_memory_field_is_refused(vybe):
    doc = {"memories": [{"key": "k", "value": "v", "colour": "red"}]}
    assert vybe("push", "--json", json.dumps(doc)).error_code == "INVALID_INPUT"


def test_a_task_scoped_memory_without_scope_id_belongs_to_the_pushed_task(vybe):
    focus = vybe.task("focus")
    pushed = vybe.task("pushed")
    vybe.ok("task", "begin", "--id", focus)
    doc = {"task_id": pushed, "memories": [{"key": "k", "value": "v", "scope": "task"}]}
    vybe.ok("push", "--json", json.dumps(doc))
    on_pushed = vybe.ok("memory", "list", "--scope", "task", "--scope-id", pushed)
    on_focus = vybe.ok("memory", "list", "--scope", "task", "--scope-id", focus)
    assert [m["key"] for m in on_pushed["memories"]] == ["k"]
    assert on_focus["memories"] == []
