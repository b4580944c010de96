"""Leased claims: one holder at a time, heartbeats extend, an expired lease frees the task."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vybe import clock


def lease_left(task: dict) -> timedelta:
    return clock.parse_iso(task["lease_expires_at"]) - datetime.now(UTC)


def test_claim_by_id_takes_the_task_under_the_lease(vybe):
    task_id = vybe.task("t")
    task = vybe.ok("task", "claim", "--id", task_id, "--lease", "10m", agent="alice")["task"]
    assert (task["status"], task["claimed_by"], task["claim_epoch"]) == ("in_progress", "alice", 1)
    assert timedelta(minutes=9) < lease_left(task) <= timedelta(minutes=10)


def test_claim_without_a_lease_uses_the_configured_default(vybe):
    task_id = vybe.task("t")
    task = vybe.ok("task", "claim", "--id", task_id)["task"]
    assert timedelta(minutes=14) < lease_left(task) <= timedelta(minutes=15)


def test_already_claimed_names_the_holder(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, agent="alice")
    refused = vybe.refused("ALREADY_CLAIMED", "task", "claim", "--id", task_id, agent="bob")
    assert refused.envelope["error_context"]["holder"] == "alice"


def test_begin_by_another_agent_is_refused_while_the_lease_holds(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "begin", "--id", task_id, agent="alice")
    vybe.refused("ALREADY_CLAIMED", "task", "begin", "--id", task_id, agent="bob")


def test_the_holder_may_claim_again_without_a_new_epoch(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, agent="alice")
    again = vybe.ok("task", "claim", "--id", task_id, agent="alice")["task"]
    assert (again["claimed_by"], again["claim_epoch"]) == ("alice", 1)


def test_an_expired_lease_lets_another_agent_take_the_task(vybe, travel):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, "--lease", "1s", agent="alice")
    travel(2)
    task = vybe.ok("task", "claim", "--id", task_id, agent="bob")["task"]
    assert (task["claimed_by"], task["claim_epoch"]) == ("bob", 2)


def test_claim_next_takes_a_task_whose_lease_expired(vybe, travel):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, "--lease", "1s", agent="alice")
    assert vybe.ok("task", "claim", "--next", agent="bob")["task"] is None
    travel(2)
    assert vybe.ok("task", "claim", "--next", agent="bob")["task"]["claimed_by"] == "bob"


def test_claim_next_gives_an_agent_back_its_own_task_after_its_lease_expired(vybe, travel):
    task = vybe.task("mine")
    vybe.ok("task", "claim", "--id", task, "--lease", "1s", agent="alice")
    travel(2)
    assert vybe.ok("task", "claim", "--next", agent="alice")["task"]["id"] == task


def test_claim_next_takes_a_task_set_in_progress_without_a_claim(vybe):
    task = vybe.task("started by hand")
    vybe.ok("task", "set-status", "--id", task, "--status", "in_progress")
    claimed = vybe.ok("task", "claim", "--next", agent="bob")["task"]
    assert (claimed["id"], claimed["claimed_by"]) == (task, "bob")


def test_heartbeat_extends_the_lease(vybe, travel):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, "--lease", "1s", agent="alice")
    renewed = vybe.ok("task", "heartbeat", "--id", task_id, "--lease", "1h", agent="alice")["task"]
    assert lease_left(renewed) > timedelta(minutes=59)
    travel(2)
    vybe.refused("ALREADY_CLAIMED", "task", "claim", "--id", task_id, agent="bob")


def test_heartbeat_by_an_agent_that_does_not_hold_the_claim_is_refused(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, agent="alice")
    refused = vybe.refused("NOT_CLAIMED", "task", "heartbeat", "--id", task_id, agent="bob")
    assert refused.envelope["error_context"]["holder"] == "alice"


def test_claim_next_takes_the_highest_priority_ready_task(vybe):
    vybe.task("low")
    high = vybe.task("high", "--priority", "3")
    claimed = vybe.ok("task", "claim", "--next")
    assert claimed["task"]["id"] == high
    assert claimed["event_id"]


def test_claim_next_with_nothing_ready_returns_no_task(vybe):
    assert vybe.ok("task", "claim", "--next") == {"task": None, "event_id": None}


def test_claim_next_with_a_project_takes_only_that_projects_tasks(vybe):
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    vybe.task("elsewhere", "--priority", "9")
    inside = vybe.task("inside", "--project-id", "p")
    assert vybe.ok("task", "claim", "--next", "--project-id", "p")["task"]["id"] == inside


def test_a_completed_task_cannot_be_claimed(vybe):
    task_id = vybe.task("t")
    vybe.ok("done", task_id)
    vybe.refused("NOT_CLAIMABLE", "task", "claim", "--id", task_id)


def test_claim_needs_exactly_one_of_id_or_next(vybe):
    task_id = vybe.task("t")
    vybe.refused("USAGE_ERROR", "task", "claim", exit_code=2)
    vybe.refused("USAGE_ERROR", "task", "claim", "--id", task_id, "--next", exit_code=2)


def test_a_heartbeat_with_a_shorter_lease_never_shortens_it(vybe, travel):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, "--lease", "1h", agent="alice")
    renewed = vybe.ok("task", "heartbeat", "--id", task_id, "--lease", "1m", agent="alice")["task"]
    assert lease_left(renewed) > timedelta(minutes=59)
    travel(120)
    vybe.refused("ALREADY_CLAIMED", "task", "claim", "--id", task_id, agent="bob")


def test_the_holders_claim_again_with_a_shorter_lease_never_shortens_it(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, "--lease", "1h", agent="alice")
    again = vybe.ok("task", "claim", "--id", task_id, "--lease", "5m", agent="alice")["task"]
    assert (again["claim_epoch"], again["claimed_by"]) == (1, "alice")
    assert lease_left(again) > timedelta(minutes=59)


def test_a_heartbeat_from_a_clock_an_hour_behind_leaves_the_lease_where_it_was(vybe, travel):
    task_id = vybe.task("t")
    claimed = vybe.ok("task", "claim", "--id", task_id, "--lease", "15m", agent="alice")["task"]
    vybe.env.update(VYBE_CLOCK_SKEW="-3600", VYBE_TEST_CLOCK="1")
    renewed = vybe.ok("task", "heartbeat", "--id", task_id, "--lease", "15m", agent="alice")
    assert renewed["task"]["lease_expires_at"] >= claimed["lease_expires_at"]
    del vybe.env["VYBE_CLOCK_SKEW"]
    vybe.refused("ALREADY_CLAIMED", "task", "claim", "--id", task_id, agent="bob")


def test_a_clock_stepped_back_keeps_the_lease_live_and_a_heartbeat_keeps_its_end(vybe, travel):
    task_id = vybe.task("t")
    claimed = vybe.ok("task", "claim", "--id", task_id, "--lease", "15m", agent="alice")["task"]
    travel(-3600)
    vybe.refused("ALREADY_CLAIMED", "task", "claim", "--id", task_id, agent="bob")
    renewed = vybe.ok("task", "heartbeat", "--id", task_id, "--lease", "15m", agent="alice")
    assert renewed["task"]["lease_expires_at"] == claimed["lease_expires_at"]


def test_a_lease_a_clock_a_month_ahead_left_holds_nothing_once_it_is_right(vybe, travel):
    task_id = vybe.task("t")
    travel(30 * 86400)
    vybe.ok("task", "claim", "--id", task_id, "--lease", "15m", agent="alice")
    travel(-30 * 86400)
    taken = vybe.ok("task", "claim", "--next", agent="bob")["task"]
    assert (taken["id"], taken["claimed_by"], taken["claim_epoch"]) == (task_id, "bob", 2)
    vybe.refused("NOT_CLAIMED", "task", "heartbeat", "--id", task_id, agent="alice")


def test_the_holders_heartbeat_brings_a_lease_set_a_month_ahead_back_to_now(vybe, travel):
    task_id = vybe.task("t")
    travel(30 * 86400)
    vybe.ok("task", "begin", "--id", task_id, "--lease", "15m", agent="alice")
    travel(-30 * 86400)
    renewed = vybe.ok("task", "heartbeat", "--id", task_id, "--lease", "15m", agent="alice")
    assert timedelta(minutes=14) < lease_left(renewed["task"]) <= timedelta(minutes=15)


@pytest.mark.parametrize("argv", [["claim", "--next"], ["begin", "--id", "{task}"]])
def test_a_lease_longer_than_a_day_is_invalid_input(vybe, argv):
    task_id = vybe.task("t")
    command = ["task", *(arg.format(task=task_id) for arg in argv)]
    refused = vybe.refused("INVALID_INPUT", *command, "--lease", "25h")
    assert refused.envelope["error_context"]["field"] == "lease"
    vybe.ok(*command, "--lease", "24h")


def test_a_heartbeat_longer_than_a_day_is_invalid_input(vybe):
    task_id = vybe.task("t")
    vybe.ok("task", "claim", "--id", task_id, agent="alice")
    vybe.refused("INVALID_INPUT", "task", "heartbeat", "--id", task_id, "--lease", "2d")


def test_a_configured_lease_longer_than_a_day_is_invalid_input(vybe):
    task_id = vybe.task("t")
    vybe.env["VYBE_CLAIM_LEASE"] = "2d"
    refused = vybe.refused("INVALID_INPUT", "task", "claim", "--id", task_id)
    assert refused.envelope["error_context"]["field"] == "claim_lease"


def test_a_clock_past_year_9999_is_a_stable_error(vybe, travel):
    task_id = vybe.task("t")
    travel(8000 * 366 * 86400)
    refused = vybe.refused("CLOCK_OUT_OF_RANGE", "task", "claim", "--id", task_id)
    assert "cannot record" in refused.envelope["error"]


def test_a_lease_that_would_end_past_year_9999_is_a_stable_error(vybe, travel):
    task_id = vybe.task("t")
    travel((datetime(9999, 12, 31, 23, tzinfo=UTC) - datetime.now(UTC)).total_seconds())
    vybe.refused("CLOCK_OUT_OF_RANGE", "task", "claim", "--id", task_id, "--lease", "2h")
