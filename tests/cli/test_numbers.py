"""Numbers JSON cannot carry back (1e400, NaN, 2^70, 5,000 digits) are refused before any
write on every path; a store that already holds one still reads."""

from __future__ import annotations

import json

import pytest

from vybe.errors import VybeError

BAD_NUMBERS = ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", str(2**70), "9" * 5000]


@pytest.mark.parametrize("number", BAD_NUMBERS, ids=lambda n: n[:12])
def test_push_refuses_a_number_it_could_not_give_back(vybe, number):
    doc = '{"event": {"kind": "k", "metadata": {"a": NUMBER}}}'.replace("NUMBER", number)
    vybe.refused("INVALID_INPUT", "push", "--json", doc)


@pytest.mark.parametrize("number", ["1e400", str(2**70), "9" * 5000], ids=["1e400", "2^70", "5000"])
def test_a_push_memory_value_that_is_a_huge_number_is_refused(vybe, number):
    doc = '{"memories": [{"key": "k", "value": [NUMBER]}]}'.replace("NUMBER", number)
    vybe.refused("INVALID_INPUT", "push", "--json", doc)


@pytest.mark.parametrize("number", ["1e400", str(2**70), "9" * 5000], ids=["1e400", "2^70", "5000"])
@pytest.mark.parametrize(
    "command", [["task", "create", "--title"], ["project", "create", "--name"]]
)
def test_task_and_project_metadata_refuse_huge_numbers(vybe, command, number):
    vybe.refused(
        "INVALID_INPUT", *command, "t", "--metadata", '{"a": NUMBER}'.replace("NUMBER", number)
    )


@pytest.mark.parametrize("value", ["1e400", str(2**70), '{"a": 1e400}', "[NaN]"])
def test_a_typed_memory_value_out_of_range_is_refused(vybe, value):
    kind = "number" if value[0].isdigit() else "json"
    vybe.refused("INVALID_INPUT", "memory", "set", "-k", "k", "-v", value, "-t", kind)


def test_an_undetected_huge_number_is_kept_as_the_text_it_is(vybe):
    stored = vybe.ok("memory", "set", "-k", "id", "-v", "1" * 40)["memory"]
    assert (stored["value"], stored["value_type"]) == ("1" * 40, "string")


@pytest.mark.parametrize("value", ["1\u0663", "\u0661\u0662", "1.\u0665", "1e\u0663"])
def test_a_value_written_in_other_scripts_digits_is_no_json_number(vybe, value):
    stored = vybe.ok("memory", "set", "-k", "n", "-v", value)["memory"]
    assert stored["value_type"] == "string"
    vybe.refused("INVALID_INPUT", "memory", "set", "-k", "m", "-v", value, "-t", "number")


def test_a_push_force_flag_must_be_a_json_boolean(vybe):
    blocker, task = vybe.task("blocker"), vybe.task("t")
    vybe.ok("task", "depend", "--id", task, "--on", blocker)
    doc = {"task_id": task, "task_status": {"status": "completed", "force": "false"}}
    vybe.refused("INVALID_INPUT", "push", "--json", json.dumps(doc))


def _store_infinity(vybe) -> str:
    """What an older vybe let through: Infinity in event, task and project metadata."""
    task = vybe.task("t")
    vybe.ok("project", "create", "--name", "p", "--id", "p")
    vybe.sql(
        "INSERT INTO events (kind, agent_name, task_id, message, metadata, created_at)"
        " VALUES ('k', 'default', ?, 'm', '{\"a\": Infinity, \"b\": NaN}',"
        " '2026-01-01T00:00:00.000000Z')",
        (task,),
    )
    vybe.sql("UPDATE tasks SET metadata = '{\"a\": -Infinity}' WHERE id = ?", (task,))
    vybe.sql("UPDATE projects SET metadata = '[1e999]' WHERE id = 'p'")
    return task


def test_a_store_holding_infinity_still_reads(vybe):
    task = _store_infinity(vybe)
    event = vybe.ok("events", "--kind", "k")["events"][0]
    assert event["metadata"] == {"a": "Infinity", "b": "NaN"}
    assert vybe.ok("task", "get", "--id", task)["task"]["metadata"] == {"a": "-Infinity"}
    assert vybe.ok("task", "list")["count"] == 1
    assert vybe.ok("project", "list")["projects"][0]["metadata"] == ["Infinity"]
    assert vybe.ok("resume", "--peek")["delta_count"] >= 1
    resumed = vybe.ok("resume")
    assert resumed["new_cursor"] > resumed["old_cursor"]


def test_a_mutation_whose_result_json_cannot_carry_writes_nothing(store):

    def body(conn):
        conn.execute("INSERT INTO agent_state (agent_name, last_active_at) VALUES ('a', 'x')")
        return {"x": float("inf")}

    with pytest.raises(VybeError) as raised:
        store.idempotent("a", "r1", "test", {}, body)
    assert raised.value.code == "INVALID_INPUT"
    assert store.conn.execute("SELECT COUNT(*) FROM agent_state").fetchone()[0] == 0
    assert store.conn.execute("SELECT COUNT(*) FROM idempotency").fetchone()[0] == 0


@pytest.mark.parametrize("priority", [2**70, True, 1.5])
def test_task_create_refuses_a_priority_that_is_not_a_bounded_integer(store, priority):
    from vybe.actions import tasks

    with pytest.raises(VybeError) as raised:
        tasks.create(store, "a", "r", title="t", priority=priority)
    assert raised.value.code == "INVALID_INPUT"
    assert store.conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0] == 0
