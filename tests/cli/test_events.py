"""events with each filter, and artifacts add / list."""

from __future__ import annotations

import hashlib
import json

import pytest


@pytest.fixture
def log(vybe):
    """Two tasks; alice notes on the first, bob on the second."""
    first, second = vybe.task("first", agent="alice"), vybe.task("second", agent="bob")
    vybe.ok("note", first, "a1", agent="alice")
    vybe.ok("note", second, "b1", "--kind", "reasoning", agent="bob")
    return first, second


def messages(vybe, *args: str, agent: str = "alice") -> list[str]:
    return [e["message"] for e in vybe.ok("events", *args, agent=agent)["events"]]


def test_events_shows_only_my_events_newest_first(vybe, log):
    assert messages(vybe) == ["a1", "first"]


def test_events_all_shows_every_agents_events(vybe, log):
    assert messages(vybe, "--all") == ["b1", "a1", "second", "first"]


def test_events_asc_is_oldest_first(vybe, log):
    assert messages(vybe, "--all", "--asc") == ["first", "second", "a1", "b1"]


def test_events_task_id_shows_that_tasks_events_from_any_agent(vybe, log):
    _, second = log
    assert messages(vybe, "--task-id", second) == ["b1", "second"]


def test_events_kind_filters_by_kind(vybe, log):
    assert messages(vybe, "--all", "--kind", "reasoning") == ["b1"]


def test_events_since_returns_only_later_events(vybe, log):
    oldest = vybe.ok("events", "--all", "--asc", "--limit", "1")["events"][0]["id"]
    listed = vybe.ok("events", "--all", "--since", str(oldest), "--asc", agent="x")
    assert [e["message"] for e in listed["events"]] == ["second", "a1", "b1"]
    assert listed["since_id"] == oldest


def test_events_limit_caps_the_result(vybe, log):
    listed = vybe.ok("events", "--all", "--limit", "2")
    assert listed["count"] == 2


@pytest.mark.usefixtures("log")
def test_archived_events_show_only_with_include_archived(vybe):
    vybe.sql("UPDATE events SET archived_at = '2026-01-01T00:00:00.000000Z' WHERE message = 'a1'")
    assert messages(vybe) == ["first"]
    assert messages(vybe, "--include-archived") == ["a1", "first"]


def test_artifacts_add_links_a_file_with_its_own_event(vybe):
    task_id = vybe.task("t")
    added = vybe.ok(
        "artifacts", "add", "--task-id", task_id, "--path", "out/report.md",
        "--content-type", "text/markdown",
    )["artifact"]  # fmt: skip
    assert added["artifact_id"].startswith("artifact_")
    event = vybe.ok("events", "--task-id", task_id, "--kind", "artifact_added")["events"][0]
    assert (event["id"], event["message"]) == (added["event_id"], "out/report.md")


def test_the_same_file_with_the_same_bytes_is_one_artifact(vybe, tmp_path):
    task_id = vybe.task("t")
    report = tmp_path / "report.md"
    report.write_text("# results\n")
    add = ("artifacts", "add", "--task-id", task_id, "--path", str(report))
    first, again = vybe.ok(*add)["artifact"], vybe.ok(*add)["artifact"]
    assert (first["deduplicated"], again["deduplicated"]) == (False, True)
    assert again["artifact_id"] == first["artifact_id"]
    assert again["content_sha256"] == hashlib.sha256(b"# results\n").hexdigest()
    report.write_text("# results, rerun\n")
    changed = vybe.ok(*add)["artifact"]
    assert changed["deduplicated"] is False and changed["artifact_id"] != first["artifact_id"]
    assert vybe.ok("artifacts", "--task-id", task_id)["count"] == 2
    assert len(vybe.ok("events", "--task-id", task_id, "--kind", "artifact_added")["events"]) == 2


def test_a_push_of_a_file_already_linked_with_those_bytes_adds_no_artifact(vybe, tmp_path):
    task_id = vybe.task("t")
    (tmp_path / "out.log").write_text("ok\n")
    item = {"file_path": str(tmp_path / "out.log")}
    doc = {"task_id": task_id, "event": {"kind": "progress"}, "artifacts": [item, item]}
    pushed = vybe.ok("push", "--json", json.dumps(doc))["artifacts"]
    assert [a["deduplicated"] for a in pushed] == [False, True]
    assert vybe.ok("artifacts", "--task-id", task_id)["count"] == 1


def test_a_path_that_is_no_readable_file_is_linked_by_its_path_alone(vybe):
    task_id = vybe.task("t")
    for _ in range(2):
        added = vybe.ok("artifacts", "add", "--task-id", task_id, "--path", "not/there.md")
        assert added["artifact"]["content_sha256"] is None
    assert vybe.ok("artifacts", "--task-id", task_id)["count"] == 2


def test_artifacts_lists_a_tasks_artifacts(vybe):
    task_id = vybe.task("t")
    for path in ("a.txt", "b.txt"):
        vybe.ok("artifacts", "add", "--task-id", task_id, "--path", path)
    listed = vybe.ok("artifacts", "--task-id", task_id)
    assert listed["count"] == 2
    assert {a["file_path"] for a in listed["artifacts"]} == {"a.txt", "b.txt"}
    assert vybe.ok("artifacts", "--task-id", task_id, "--limit", "1")["count"] == 1


def test_artifacts_without_a_task_id_is_a_usage_error(vybe):
    vybe.refused("USAGE_ERROR", "artifacts", exit_code=2)
