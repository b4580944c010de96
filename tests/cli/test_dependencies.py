"""A task with an unfinished blocker is not ready, cannot start, and cannot close unforced."""

from __future__ import annotations

import pytest


@pytest.fixture
def chain(vybe):
    """``deploy`` depends on ``migrate``."""
    migrate, deploy = vybe.task("migrate"), vybe.task("deploy")
    vybe.ok("task", "depend", "--id", deploy, "--on", migrate)
    return migrate, deploy


def ready(vybe) -> list[str]:
    return [t["id"] for t in vybe.ok("task", "list", "--ready")["tasks"]]


def test_a_task_with_an_open_blocker_is_not_ready(vybe, chain):
    migrate, _ = chain
    assert ready(vybe) == [migrate]


def test_a_task_becomes_ready_when_its_blocker_completes(vybe, chain):
    migrate, deploy = chain
    vybe.ok("done", migrate)
    assert ready(vybe) == [deploy]


def test_an_in_progress_or_blocked_blocker_still_blocks(vybe, chain):
    migrate, deploy = chain
    vybe.ok("task", "begin", "--id", migrate)
    assert deploy not in ready(vybe)
    vybe.ok("block", migrate, "--reason", "stuck")
    assert deploy not in ready(vybe)


def test_begin_refuses_a_blocked_task_naming_the_blockers(vybe, chain):
    migrate, deploy = chain
    refused = vybe.refused("BLOCKED_BY_DEPENDENCY", "task", "begin", "--id", deploy)
    assert [b["id"] for b in refused.envelope["error_context"]["open_blockers"]] == [migrate]


def test_claim_by_id_refuses_a_blocked_task(vybe, chain):
    _, deploy = chain
    vybe.refused("BLOCKED_BY_DEPENDENCY", "task", "claim", "--id", deploy)


def test_claim_next_skips_a_blocked_task(vybe, chain):
    migrate, _ = chain
    assert vybe.ok("task", "claim", "--next")["task"]["id"] == migrate
    assert vybe.ok("task", "claim", "--next", agent="other")["task"] is None


def test_set_status_in_progress_refuses_a_blocked_task(vybe, chain):
    _, deploy = chain
    vybe.refused(
        "BLOCKED_BY_DEPENDENCY", "task", "set-status", "--id", deploy, "--status", "in_progress"
    )


def test_done_refuses_a_task_whose_blocker_is_open(vybe, chain):
    _, deploy = chain
    vybe.refused("BLOCKED_BY_DEPENDENCY", "done", deploy)


def test_set_status_completed_refuses_a_task_whose_blocker_is_open(vybe, chain):
    _, deploy = chain
    vybe.refused(
        "BLOCKED_BY_DEPENDENCY", "task", "set-status", "--id", deploy, "--status", "completed"
    )


def test_done_with_force_closes_despite_an_open_blocker_and_says_so(vybe, chain):
    _, deploy = chain
    closed = vybe.ok("done", deploy, "--force")
    assert closed["task"]["status"] == "completed"
    event = vybe.ok("events", "--task-id", deploy, "--kind", "task_completed")["events"][0]
    assert event["metadata"]["forced"] is True


def test_a_direct_cycle_is_refused(vybe, chain):
    migrate, deploy = chain
    vybe.refused("DEPENDENCY_CYCLE", "task", "depend", "--id", migrate, "--on", deploy)


def test_a_transitive_cycle_is_refused(vybe):
    a, b, c = vybe.task("a"), vybe.task("b"), vybe.task("c")
    vybe.ok("task", "depend", "--id", a, "--on", b)
    vybe.ok("task", "depend", "--id", b, "--on", c)
    vybe.refused("DEPENDENCY_CYCLE", "task", "depend", "--id", c, "--on", a)


def test_a_task_cannot_depend_on_itself(vybe):
    a = vybe.task("a")
    vybe.refused("DEPENDENCY_CYCLE", "task", "depend", "--id", a, "--on", a)


def test_depending_twice_adds_nothing_the_second_time(vybe, chain):
    migrate, deploy = chain
    again = vybe.ok("task", "depend", "--id", deploy, "--on", migrate)
    assert (again["added"], again["event_id"]) == (False, None)


def test_undepend_makes_the_task_ready(vybe, chain):
    migrate, deploy = chain
    removed = vybe.ok("task", "undepend", "--id", deploy, "--on", migrate)
    assert removed["removed"] is True
    assert set(ready(vybe)) == {migrate, deploy}


def test_undepend_of_a_missing_edge_reports_removed_false(vybe, chain):
    migrate, deploy = chain
    assert vybe.ok("task", "undepend", "--id", migrate, "--on", deploy)["removed"] is False
