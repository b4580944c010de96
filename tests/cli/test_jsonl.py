"""--jsonl: every command whose result is a list prints its rows one per line, then the
envelope of the rest; errors stay one envelope."""

from __future__ import annotations

import json

import pytest

from vybe.cli.commands import every

LISTING = {name: op.listing for name, op in every().operations.items() if op.listing}


def _lines(vybe, *args: str) -> list[dict]:
    code, text = vybe.text(*args)
    assert code == 0, text
    return [json.loads(line) for line in text.splitlines()]


def test_every_command_that_returns_a_list_takes_jsonl():
    assert set(LISTING) == {
        "events", "task list", "memory list", "project list", "artifacts list", "search",
        "session list", "session receipts", "data query", "admin list",
    }  # fmt: skip


def test_each_row_is_a_line_and_the_last_line_is_the_rest_of_the_envelope(vybe):
    for n in range(3):
        vybe.task(f"task {n}")
    whole = vybe.ok("task", "list")
    *rows, last = _lines(vybe, "task", "list", "--jsonl")
    assert rows == whole["tasks"]
    assert last == {
        "schema_version": "v1",
        "success": True,
        "data": {"count": 3, "jsonl": {"field": "tasks", "lines": 3}},
    }


def test_the_last_line_carries_the_cursor_to_follow(vybe):
    for n in range(3):
        vybe.task(f"billing step {n}")
    *rows, last = _lines(vybe, "search", "billing", "--limit", "2", "--jsonl")
    assert len(rows) == 2 and last["data"]["next_cursor"]
    rest = _lines(vybe, "search", "billing", "--cursor", last["data"]["next_cursor"], "--jsonl")
    assert len(rest) >= 2


def test_an_empty_list_is_the_last_line_alone(vybe):
    vybe.initialized()
    assert _lines(vybe, "events", "--all", "--kind", "nothing", "--jsonl") == [
        {
            "schema_version": "v1",
            "success": True,
            "data": {
                "agent": None, "task_id": None, "kind": "nothing", "since_id": 0, "count": 0,
                "jsonl": {"field": "events", "lines": 0},
            },
        }
    ]  # fmt: skip


def test_lines_are_never_indented_even_when_pretty_json_is_asked_for(vybe):
    vybe.task("one")
    vybe.env["VYBE_PRETTY_JSON"] = "1"
    code, text = vybe.text("task", "list", "--jsonl")
    assert code == 0 and len(text.splitlines()) == 2


@pytest.mark.parametrize(
    "args", [["task", "list", "--status", "nope"], ["session", "receipts", "x"]]
)
def test_an_error_with_jsonl_is_one_envelope(vybe, args):
    vybe.initialized()
    result = vybe(*args, "--jsonl")
    assert result.envelope["success"] is False
