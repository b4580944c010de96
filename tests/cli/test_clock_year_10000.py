"""A clock past year 9999 is CLOCK_OUT_OF_RANGE, never INTERNAL, on both stores: every
command that reads the time refuses and writes nothing; reads that need no time answer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

WRITES = (
    ("task", "create", "--title", "x"),
    ("task", "claim", "--next"),
    ("task", "heartbeat", "--task-id", "{task}"),
    ("note", "{task}", "progress"),
    ("memory", "set", "-k", "k", "-v", "v", "--expires-in", "7d"),
    ("session", "say", "s1", "hello"),
    ("resume",),
    ("resume", "--peek"),
    ("maintain",),
)


def _year_10000(vybe) -> None:
    ahead = datetime(10000 - 1, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp() + 5
    offset = ahead - datetime.now(UTC).timestamp()
    vybe.env.update(VYBE_CLOCK_OFFSET=str(offset), VYBE_TEST_CLOCK="1")


@pytest.mark.parametrize("line", WRITES, ids=" ".join)
def test_a_clock_in_year_10000_is_clock_out_of_range(vybe, line):
    task = vybe.task("t")
    vybe.ok("task", "claim", "--id", task)
    _year_10000(vybe)
    vybe.refused("CLOCK_OUT_OF_RANGE", *(w.replace("{task}", task) for w in line))


@pytest.mark.parametrize("line", [("task", "list"), ("events",), ("status",)], ids=" ".join)
def test_a_read_with_the_clock_in_year_10000_still_answers(vybe, line):
    vybe.task("t")
    _year_10000(vybe)
    vybe.ok(*line)
