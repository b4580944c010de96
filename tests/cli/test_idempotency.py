"""Every mutation runs once per (agent, request id): a replay returns the first result."""

from __future__ import annotations

import json

import pytest

# Each case: setup steps and the mutation, as argv templates over two tasks {t} and {u}.
MUTATIONS = {
    "project create": ([], ["project", "create", "--name", "p"]),
    "project focus": ([], ["project", "focus", "--id", "p"]),
    "project delete": ([], ["project", "delete", "--id", "p", "--force"]),
    "task create": ([], ["task", "create", "--title", "new"]),
    "task begin": ([], ["task", "begin", "--id", "{t}"]),
    "task set-status": ([], ["task", "set-status", "--id", "{t}", "--status", "blocked"]),
    "task claim --id": ([], ["task", "claim", "--id", "{t}"]),
    "task claim --next": ([], ["task", "claim", "--next"]),
    "task heartbeat": ([["task", "claim", "--id", "{t}"]], ["task", "heartbeat", "--id", "{t}"]),
    "task assign": ([], ["task", "assign", "--id", "{t}", "--to", "bob"]),
    "task depend": ([], ["task", "depend", "--id", "{t}", "--on", "{u}"]),
    "task undepend": (
        [["task", "depend", "--id", "{t}", "--on", "{u}"]],
        ["task", "undepend", "--id", "{t}", "--on", "{u}"],
    ),
    "done": ([], ["done", "{t}", "--note", "n"]),
    "block": ([], ["block", "{t}", "--reason", "r"]),
    "note": ([], ["note", "{t}", "progress"]),
    "artifacts add": ([], ["artifacts", "add", "--task-id", "{t}", "--path", "a.txt"]),
    "push": ([], ["push", "--json", '{"task_id": "{t}", "event": {"kind": "k"}}']),
    "session say": ([], ["session", "say", "s1", "use tabs"]),
    "session say --harness": (
        [],
        ["session", "say", "s1", "--harness", 'Watch w1 "nightly"', "build broke"],
    ),
}


def fill(argv: list[str], ids: dict[str, str]) -> list[str]:
    return [a.replace("{t}", ids["t"]).replace("{u}", ids["u"]) for a in argv]


@pytest.fixture
def ids(vybe) -> dict[str, str]:
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    return {"t": vybe.task("t"), "u": vybe.task("u")}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_a_replay_returns_the_first_result_and_writes_nothing(vybe, ids, name):
    setup, argv = MUTATIONS[name]
    for step in setup:
        vybe.ok(*fill(step, ids))
    first = vybe.ok(*fill(argv, ids), "--request-id", "r-1")
    vybe.ok("task", "create", "--title", "something else happened")
    before = vybe.dump()
    assert vybe.ok(*fill(argv, ids), "--request-id", "r-1") == first
    assert vybe.dump() == before


def test_a_replay_after_the_state_moved_on_still_returns_the_first_result(vybe, ids):
    began = vybe.ok("task", "begin", "--id", ids["t"], "--request-id", "b")
    vybe.ok("done", ids["t"])
    assert vybe.ok("task", "begin", "--id", ids["t"], "--request-id", "b") == began


def test_the_same_request_id_with_different_arguments_is_a_mismatch(vybe, ids):
    vybe.ok("note", ids["t"], "one", "--request-id", "r")
    refused = vybe.refused("IDEMPOTENCY_MISMATCH", "note", ids["t"], "two", "--request-id", "r")
    assert refused.envelope["error_context"]["request_id"] == "r"


def test_the_same_request_id_for_another_command_is_a_mismatch(vybe, ids):
    vybe.ok("note", ids["t"], "one", "--request-id", "r")
    vybe.refused("IDEMPOTENCY_MISMATCH", "done", ids["t"], "--request-id", "r")


def test_the_request_id_can_come_from_the_environment(vybe, ids):
    vybe.env["VYBE_REQUEST_ID"] = "from-env"
    first = vybe.ok("note", ids["t"], "hello")
    count = vybe.event_count()
    assert vybe.ok("note", ids["t"], "hello") == first
    assert vybe.event_count() == count


def test_request_ids_are_per_agent(vybe, ids):
    alice = vybe.ok("note", ids["t"], "hi", "--request-id", "r", agent="alice")
    bob = vybe.ok("note", ids["t"], "hi", "--request-id", "r", agent="bob")
    assert alice["event_id"] != bob["event_id"]


def test_a_refused_mutation_does_not_use_up_its_request_id(vybe, ids):
    vybe.ok("task", "depend", "--id", ids["t"], "--on", ids["u"])
    vybe.refused("BLOCKED_BY_DEPENDENCY", "done", ids["t"], "--request-id", "d")
    vybe.ok("done", ids["u"])
    assert vybe.ok("done", ids["t"], "--request-id", "d")["task"]["status"] == "completed"


def test_without_a_request_id_each_run_is_a_new_mutation(vybe, ids):
    first = vybe.ok("note", ids["t"], "same")
    second = vybe.ok("note", ids["t"], "same")
    assert first["event_id"] != second["event_id"]


def test_a_replayed_push_reports_the_same_ids(vybe, ids):
    doc = json.dumps({"task_id": ids["t"], "artifacts": [{"file_path": "x"}]})
    first = vybe.ok("push", "--json", doc, "--request-id", "p")
    assert vybe.ok("push", "--json", doc, "--request-id", "p") == first
    assert vybe.ok("artifacts", "--task-id", ids["t"])["count"] == 1
