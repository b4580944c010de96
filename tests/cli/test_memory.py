"""memory set|get|list|delete|pin|gc and remember, through the real CLI."""

from __future__ import annotations

import pytest


def test_types_are_detected(vybe):
    cases = {"s": "hello", "n": "-3.5e2", "b": "true", "j": '{"a": 1}', "a": "[1, 2]"}
    for key, value in cases.items():
        vybe.ok("memory", "set", "-k", key, f"--value={value}")
    types = {m["key"]: m["value_type"] for m in vybe.ok("memory", "list")["memories"]}
    assert types == {"s": "string", "n": "number", "b": "boolean", "j": "json", "a": "array"}


def test_a_value_nested_too_deeply_to_read_as_json_is_a_string(vybe):
    deep = "[" * 5000 + "]" * 5000
    vybe.ok("memory", "set", "-k", "deep", f"--value={deep}")
    assert vybe.ok("memory", "get", "-k", "deep")["memory"]["value_type"] == "string"


def test_set_twice_upserts_one_entry(vybe):
    vybe.ok("memory", "set", "-k", "db", "-v", "postgres 15")
    vybe.ok("memory", "set", "-k", "db", "-v", "postgres 16")
    entries = vybe.ok("memory", "list")["memories"]
    assert [(m["key"], m["value"]) for m in entries] == [("db", "postgres 16")]


def test_pin_is_sticky_upward(vybe):
    vybe.ok("memory", "set", "-k", "goal", "-v", "ship v2", "--pin")
    again = vybe.ok("memory", "set", "-k", "goal", "-v", "ship v2.1")["memory"]
    assert again["pinned"] is True
    unpinned = vybe.ok("memory", "pin", "-k", "goal", "--unpin")["memory"]
    assert unpinned["pinned"] is False


def test_kind_is_not_sticky(vybe):
    vybe.ok("memory", "set", "-k", "rule", "-v", "run tests", "--kind", "directive")
    assert vybe.ok("memory", "set", "-k", "rule", "-v", "run tests")["memory"]["kind"] == "fact"


def test_get_counts_an_access_and_list_does_not(vybe):
    vybe.ok("memory", "set", "-k", "k", "-v", "v")
    vybe.ok("memory", "list")
    assert vybe.ok("memory", "get", "-k", "k")["memory"]["access_count"] == 1
    assert vybe.ok("memory", "get", "-k", "k")["memory"]["access_count"] == 2


def _expire(vybe, key: str) -> None:
    vybe.sql("UPDATE memory SET expires_at = '2000-01-01T00:00:00.000000Z' WHERE key = ?", (key,))


def test_expired_entries_are_never_returned_and_gc_removes_them(vybe):
    vybe.ok("memory", "set", "-k", "tmp", "-v", "x", "--expires-in", "1h")
    vybe.ok("memory", "set", "-k", "keep", "-v", "y")
    _expire(vybe, "tmp")
    assert vybe("memory", "get", "-k", "tmp").error_code == "NOT_FOUND"
    assert [m["key"] for m in vybe.ok("memory", "list")["memories"]] == ["keep"]
    assert vybe.ok("memory", "gc")["deleted"] == 1
    assert vybe.ok("memory", "gc")["deleted"] == 0


def test_supersedes_hides_the_old_entry_but_keeps_its_history(vybe):
    vybe.ok("memory", "set", "-k", "port", "-v", "8080")
    new = vybe.ok("memory", "set", "-k", "port", "-v", "9090", "--supersedes", "port")["memory"]
    live = vybe.ok("memory", "list")["memories"]
    assert [(m["key"], m["value"]) for m in live] == [("port", "9090")]
    history = vybe.ok("memory", "list", "--include-superseded")["memories"]
    old = next(m for m in history if m["value"] == "8080")
    assert old["superseded_by"] == new["id"] and new["supersedes"] == old["id"]


def test_supersedes_an_other_key(vybe):
    vybe.ok("memory", "set", "-k", "db_host", "-v", "old.example")
    vybe.ok("memory", "set", "-k", "database_url", "-v", "pg://new", "--supersedes", "db_host")
    assert [m["key"] for m in vybe.ok("memory", "list")["memories"]] == ["database_url"]


def test_remember_shorthand_keeps_equals_in_the_value(vybe):
    entry = vybe.ok("remember", "query=a=b")["memory"]
    assert (entry["key"], entry["value"]) == ("query", "a=b")


def test_task_scope_defaults_to_the_focus_task(vybe):
    task = vybe.task("t")
    vybe.ok("task", "begin", "--id", task)
    assert vybe.ok("remember", "x=1", "--scope", "task")["memory"]["scope_id"] == task


def test_delete_of_a_missing_entry_succeeds(vybe):
    assert vybe.ok("memory", "delete", "-k", "nope")["deleted"] is False


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["memory", "set", "-k", "x", "-v", "1", "--expires-in", "soon"], "INVALID_INPUT"),
        (["memory", "set", "-k", "x", "-v", "1", "--scope", "galaxy"], "USAGE_ERROR"),
        (["memory", "set", "-k", "x", "-v", "1", "--kind", "rumour"], "USAGE_ERROR"),
        (["memory", "set", "-k", "x", "-v", "abc", "-t", "number"], "INVALID_INPUT"),
        (["memory", "set", "-k", "x", "-v", "1", "--half-life-days", "0"], "INVALID_INPUT"),
        (["memory", "set", "-k", "x", "-v", "1", "--half-life-days", "nan"], "USAGE_ERROR"),
        (["memory", "set", "-k", "x", "-v", "v" * 16385], "INVALID_INPUT"),
        (["memory", "set", "-k", "x", "-v", "1", "-s", "task", "--scope-id", "t"], "NOT_FOUND"),
        (["memory", "set", "-k", "x", "-v", "1", "--source-task-id", "t"], "NOT_FOUND"),
        (["memory", "set", "-k", "x", "-v", "1", "--supersedes", "missing"], "NOT_FOUND"),
        (["memory", "pin", "-k", "missing"], "NOT_FOUND"),
        (["memory", "get", "-k", "x", "-s", "project"], "INVALID_INPUT"),
        (["remember", "no-equals-sign"], "INVALID_INPUT"),
        (["memory", "gc", "--batch", "0"], "USAGE_ERROR"),
        (["memory", "set", "-k", "k" * 257, "-v", "1"], "INVALID_INPUT"),
        (["memory", "list", "--scope", "galaxy"], "USAGE_ERROR"),
        (["memory", "set", "-k", "x", "-v", "1", "--scope-id", "g"], "INVALID_INPUT"),
        (["push", "--json", '{"memories": {"key": "k"}}'], "INVALID_INPUT"),
        (
            ["push", "--json", '{"memories": [{"key": "k", "value": 1, "pinned": "x"}]}'],
            "INVALID_INPUT",
        ),
        (
            ["push", "--json", '{"memories": [{"key": "k", "value": "v", "scope": 3}]}'],
            "INVALID_INPUT",
        ),
        (["resume", "--project-dir", ""], "INVALID_INPUT"),
    ],
)
def test_bad_input_is_a_json_error_with_a_stable_code(vybe, args, code):
    vybe.ok("init")
    assert vybe(*args).error_code == code


def test_a_blank_agent_scope_id_means_the_calling_agent(vybe):
    vybe.ok(
        "memory", "set", "-k", "k", "-v", "v", "--scope", "agent", "--scope-id", "  ", agent="Al"
    )
    assert (
        vybe.ok("memory", "get", "-k", "k", "--scope", "agent", agent="Al")["memory"]["value"]
        == "v"
    )


@pytest.mark.parametrize(
    "command", [["memory", "delete"], ["memory", "pin"], ["memory", "get"], ["memory", "list"]]
)
def test_a_scope_id_with_the_default_global_scope_is_refused_as_set_refuses_it(vybe, command):
    vybe.ok("project", "create", "--name", "p", "--id", "/srv/p")
    vybe.ok("memory", "set", "-k", "dk", "-v", "global")
    vybe.ok("memory", "set", "-k", "dk", "-v", "project", "-s", "project", "--scope-id", "/srv/p")
    key = ["-k", "dk"] if command[1] != "list" else ["--scope", "global"]
    vybe.refused("INVALID_INPUT", *command, *key, "--scope-id", "/srv/p")
    vybe.refused("INVALID_INPUT", "memory", "set", "-k", "dk", "-v", "x", "--scope-id", "/srv/p")
