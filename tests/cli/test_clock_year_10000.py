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


def test_a_prompt_typed_while_the_clock_reads_year_10000_is_kept_and_recorded_later(vybe):
    """The person's words are never dropped: kept on disk, added by the next hook that can
    write, in the order typed."""
    import json
    import subprocess

    from tests.conftest import VYBE

    def prompt(text: str) -> None:
        event = {"session_id": "s1", "cwd": str(vybe.home), "hook_event_name": "UserPromptSubmit"}
        stdin = json.dumps({**event, "prompt": text})
        done = subprocess.run([VYBE, "hook", "run", "claude"], input=stdin, env=vybe.env, text=True)
        assert done.returncode == 0

    vybe.task("t")  # the store, made
    clock = dict(vybe.env)
    _year_10000(vybe)
    prompt("typed while the clock was wrong")
    vybe.env = clock
    prompt("typed once it was right")
    rows = vybe.sql("SELECT content_text FROM messages WHERE session_id = 'claude:s1'")
    assert [r[0] for r in rows] == ["typed while the clock was wrong", "typed once it was right"]
