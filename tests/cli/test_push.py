"""push: an event, artifacts and a status change in one transaction, all or nothing."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def task_id(vybe) -> str:
    return vybe.task("t")


def test_push_writes_event_artifacts_and_status_together(vybe, task_id):
    doc = {
        "task_id": task_id,
        "event": {"kind": "progress", "message": "built it", "metadata": {"files": 2}},
        "artifacts": [{"file_path": "a.py"}, {"file_path": "b.md", "content_type": "text/md"}],
        "task_status": {"status": "completed", "note": "all green"},
    }
    pushed = vybe.ok("push", "--json", json.dumps(doc))
    assert [a["event_id"] for a in pushed["artifacts"]] == [pushed["event_id"]] * 2
    assert pushed["task_status"]["status"] == "completed"
    assert vybe.ok("task", "get", "--id", task_id)["task"]["status"] == "completed"
    assert vybe.ok("artifacts", "--task-id", task_id)["count"] == 2
    event = vybe.ok("events", "--task-id", task_id, "--kind", "progress")["events"][0]
    assert event["metadata"] == {"files": 2}


def test_push_reads_the_document_from_stdin(vybe, task_id):
    doc = json.dumps({"task_id": task_id, "event": {"kind": "progress", "message": "m"}})
    assert vybe.ok("push", "--json", "-", stdin=doc)["event_id"]


def test_push_of_an_event_alone_needs_no_task(vybe):
    pushed = vybe.ok("push", "--json", '{"event": {"kind": "thought", "message": "hm"}}')
    assert (pushed["artifacts"], pushed["task_status"]) == ([], None)


def test_push_whose_status_change_fails_writes_no_event_and_no_artifact(vybe, task_id):
    blocker = vybe.task("blocker")
    vybe.ok("task", "depend", "--id", task_id, "--on", blocker)
    doc = {
        "task_id": task_id,
        "event": {"kind": "progress", "message": "done?"},
        "artifacts": [{"file_path": "a.py"}],
        "task_status": {"status": "completed"},
    }
    vybe.refused("BLOCKED_BY_DEPENDENCY", "push", "--json", json.dumps(doc))


def test_push_with_an_unknown_status_writes_nothing(vybe, task_id):
    doc = {"task_id": task_id, "event": {"kind": "k"}, "task_status": {"status": "finished"}}
    vybe.refused("INVALID_INPUT", "push", "--json", json.dumps(doc))


@pytest.mark.parametrize(
    "doc",
    [
        "not json",
        "[1, 2]",
        "{}",
        '{"event": {"kind": "k"}, "extra": 1}',
        '{"event": {"message": "no kind"}}',
        '{"event": {"kind": 5}}',
        '{"artifacts": [{"file_path": "a"}]}',
        '{"artifacts": "a.py", "task_id": "x"}',
        '{"event": {"kind": "k", "message": "' + "x" * 4097 + '"}}',
        '{"event": {"kind": "' + "k" * 129 + '"}}',
        '{"event": {"kind": "k", "metadata": {"big": "' + "x" * 16385 + '"}}}',
    ],
    ids=[
        "not-json",
        "not-an-object",
        "empty",
        "unknown-part",
        "event-without-kind",
        "kind-not-a-string",
        "artifacts-without-task",
        "artifacts-not-a-list",
        "message-too-long",
        "kind-too-long",
        "metadata-too-long",
    ],
)
def test_push_refuses_an_invalid_document(vybe, doc):
    vybe.refused("INVALID_INPUT", "push", "--json", doc)


def test_push_for_an_unknown_task_is_not_found(vybe):
    vybe.refused("NOT_FOUND", "push", "--json", '{"task_id": "task_x", "event": {"kind": "k"}}')


def test_an_event_metadata_over_its_limit_names_the_field_and_the_limit(vybe):
    doc = '{"event": {"kind": "k", "metadata": {"big": "' + "x" * 16385 + '"}}}'
    context = vybe.refused("INVALID_INPUT", "push", "--json", doc).envelope["error_context"]
    assert context == {"field": "event.metadata", "length": 16396, "limit": 16384}
