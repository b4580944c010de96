"""VYBE_CLOCK_OFFSET (every process's time) and VYBE_CLOCK_SKEW (this machine's clock only)
move vybe's clock only beside the test switch VYBE_TEST_CLOCK=1: a stray setting in a real
process's environment shifts no timestamp and no lease."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from vybe import clock

MONTH = 30 * 86400


def _age(text: str) -> timedelta:
    return abs(datetime.now(UTC) - clock.parse_iso(text))


def test_a_stray_clock_offset_in_a_real_process_shifts_no_timestamp_and_no_lease(vybe):
    vybe.env["VYBE_CLOCK_OFFSET"] = str(MONTH)
    task_id = vybe.process("task", "create", "--title", "t").data["task"]["id"]
    task = vybe.process("task", "claim", "--id", task_id, "--lease", "15m").data
    assert _age(task["task"]["created_at"]) < timedelta(minutes=1)
    assert _age(task["task"]["lease_expires_at"]) <= timedelta(minutes=15)


def test_a_stray_clock_offset_that_is_not_a_number_is_ignored(vybe):
    vybe.env["VYBE_CLOCK_OFFSET"] = "later"
    vybe.ok("task", "create", "--title", "t")


def test_the_clock_offset_moves_a_child_process_clock_beside_the_test_switch(vybe):
    vybe.env.update(VYBE_CLOCK_OFFSET=str(MONTH), VYBE_TEST_CLOCK="1")
    task = vybe.process("task", "create", "--title", "t").data["task"]
    assert abs(_age(task["created_at"]) - timedelta(seconds=MONTH)) < timedelta(minutes=1)


def test_a_test_switch_other_than_1_leaves_the_clock_alone(vybe):
    vybe.env.update(VYBE_CLOCK_OFFSET=str(MONTH), VYBE_TEST_CLOCK="yes")
    task = vybe.ok("task", "create", "--title", "t")["task"]
    assert _age(task["created_at"]) < timedelta(minutes=1)


def test_a_stray_clock_skew_in_a_real_process_shifts_no_timestamp(vybe):
    vybe.env["VYBE_CLOCK_SKEW"] = str(MONTH)
    task = vybe.process("task", "create", "--title", "t").data["task"]
    assert _age(task["created_at"]) < timedelta(minutes=1)


@pytest.mark.sqlite_only(
    "a server store's time is the server's, whatever the machine's clock says"
    " (tests/postgres/test_server_clock.py)"
)
def test_the_clock_skew_moves_a_child_process_clock_on_a_one_machine_store(vybe):
    vybe.env.update(VYBE_CLOCK_SKEW=str(MONTH), VYBE_TEST_CLOCK="1")
    task = vybe.process("task", "create", "--title", "t").data["task"]
    assert abs(_age(task["created_at"]) - timedelta(seconds=MONTH)) < timedelta(minutes=1)
