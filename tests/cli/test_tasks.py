"""task create|begin|get|list|set-status|assign, done, block, note through the real CLI."""

from __future__ import annotations


def kinds(vybe, task_id: str) -> list[str]:
    return [e["kind"] for e in vybe.ok("events", "--task-id", task_id, "--asc")["events"]]


def test_create_makes_a_pending_task_and_a_task_created_event(vybe):
    created = vybe.ok("task", "create", "--title", "write docs")
    assert created["task"]["status"] == "pending"
    assert created["task"]["id"].startswith("task_")
    assert kinds(vybe, created["task"]["id"]) == ["task_created"]


def test_create_stores_description_priority_project_and_metadata(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    task = vybe.ok(
        "task", "create", "--title", "t", "--desc", "the details", "--priority", "7",
        "--project-id", "p", "--metadata", '{"ticket": 42}',
    )["task"]  # fmt: skip
    assert (task["description"], task["priority"], task["project_id"]) == ("the details", 7, "p")
    assert task["metadata"] == {"ticket": 42}


def test_begin_claims_the_task_and_makes_it_the_focus(vybe):
    task_id = vybe.task("t")
    task = vybe.ok("task", "begin", "--id", task_id, agent="alice")["task"]
    assert (task["status"], task["claimed_by"]) == ("in_progress", "alice")
    assert task["lease_expires_at"]
    assert vybe.ok("status", agent="alice")["agent_state"]["focus_task_id"] == task_id
    assert kinds(vybe, task_id) == ["task_created", "task_started"]


def test_get_returns_the_task_with_its_dependencies_and_open_blockers(vybe):
    first, second = vybe.task("first"), vybe.task("second")
    vybe.ok("task", "depend", "--id", second, "--on", first)
    got = vybe.ok("task", "get", "--id", second)
    assert got["task"]["title"] == "second"
    assert got["dependencies"] == {"depends_on": [first], "blocks": []}
    assert [b["id"] for b in got["open_blockers"]] == [first]
    assert vybe.ok("task", "get", "--id", first)["dependencies"]["blocks"] == [second]


def test_list_orders_by_priority_then_age(vybe):
    low, high, low2 = vybe.task("low"), vybe.task("high", "--priority", "5"), vybe.task("low2")
    listed = vybe.ok("task", "list")
    assert [t["id"] for t in listed["tasks"]] == [high, low, low2]
    assert listed["count"] == 3


def test_list_filters_by_status(vybe):
    vybe.task("open")
    done = vybe.task("closed")
    vybe.ok("done", done)
    assert [t["id"] for t in vybe.ok("task", "list", "--status", "completed")["tasks"]] == [done]


def test_list_filters_by_project(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    inside = vybe.task("inside", "--project-id", "p")
    vybe.task("outside")
    assert [t["id"] for t in vybe.ok("task", "list", "--project-id", "p")["tasks"]] == [inside]


def test_list_limit_caps_the_result(vybe):
    for n in range(3):
        vybe.task(f"t{n}")
    assert vybe.ok("task", "list", "--limit", "2")["count"] == 2


def test_set_status_blocked_keeps_the_reason(vybe):
    task_id = vybe.task("t")
    changed = vybe.ok(
        "task", "set-status", "--id", task_id, "--status", "blocked", "--blocked-reason", "waiting"
    )
    assert (changed["task"]["status"], changed["task"]["blocked_reason"]) == ("blocked", "waiting")
    assert kinds(vybe, task_id)[-1] == "task_blocked"


def test_set_status_pending_releases_the_claim(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "begin", "--id", task_id, agent="alice")
    changed = vybe.ok("task", "set-status", "--id", task_id, "--status", "pending", agent="alice")
    task = changed["task"]
    assert (task["status"], task["claimed_by"], task["lease_expires_at"]) == ("pending", None, None)


def test_only_the_holder_of_a_live_claim_changes_its_status(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "begin", "--id", task_id, agent="alice")
    vybe.refused("ALREADY_CLAIMED", "done", task_id, agent="bob")
    vybe.refused("ALREADY_CLAIMED", "block", task_id, "--reason", "mine now", agent="bob")
    assert vybe.ok("done", task_id, "--force", agent="bob")["task"]["status"] == "completed"


def test_done_completes_the_task_with_the_note_as_event_message(vybe):
    task_id = vybe.task("t")
    closed = vybe.ok("done", task_id, "--note", "shipped")
    assert closed["task"]["status"] == "completed"
    event = vybe.ok("events", "--task-id", task_id, "--kind", "task_completed")["events"][0]
    assert event["id"] == closed["event_id"]
    assert event["message"] == "shipped"


def test_done_clears_the_focus_on_that_task(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "begin", "--id", task_id)
    vybe.ok("done", task_id)
    assert vybe.ok("status")["agent_state"]["focus_task_id"] is None


def test_block_records_the_reason(vybe):
    task_id = vybe.task("t")
    task = vybe.ok("block", task_id, "--reason", "needs a key")["task"]
    assert (task["status"], task["blocked_reason"]) == ("blocked", "needs a key")


def test_block_with_failure_marks_the_reason_as_a_failure(vybe):
    task_id = vybe.task("t")
    assert vybe.ok("block", task_id, "--reason", "tests red", "--failure")["task"][
        "blocked_reason"
    ] == ("failure:tests red")


def test_note_logs_a_progress_event(vybe):
    task_id = vybe.task("t")
    noted = vybe.ok("note", task_id, "half done")
    event = vybe.ok("events", "--task-id", task_id)["events"][0]
    assert (event["id"], event["kind"], event["message"]) == (
        noted["event_id"],
        "progress",
        "half done",
    )


def test_note_kind_sets_the_event_kind(vybe):
    task_id = vybe.task("t")
    vybe.ok("note", task_id, "chose sqlite", "--kind", "reasoning")
    assert kinds(vybe, task_id)[-1] == "reasoning"


def test_assign_records_an_event_addressed_to_the_receiver(vybe):
    task_id = vybe.task("t")
    assigned = vybe.ok("task", "assign", "--id", task_id, "--to", "Bob", "--note", "yours now")
    assert assigned["assignee"] == "Bob"  # kept as given: "bob" would be another agent
    event = vybe.ok("events", "--task-id", task_id, "--kind", "task_assigned")["events"][0]
    assert (event["assignee_agent"], event["message"]) == ("Bob", "yours now")
