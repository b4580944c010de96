"""vybe's own tasks and memory as agent tools, on a real store, called as the runner calls them."""

from __future__ import annotations

import json

import pytest

from vybe.actions import memory as memory_actions
from vybe.agent.shell import BashPermission
from vybe.agent.tasks import TaskTools
from vybe.agent.tools import Toolbox
from vybe.llm.base import ToolCall


@pytest.fixture
def toolbox(store, tmp_path):
    return Toolbox(tmp_path, {}, BashPermission(), TaskTools(store, "vibey", "s1"))


def call(toolbox, call_id: str, name: str, **arguments: object):
    return toolbox.run(ToolCall(call_id, name, dict(arguments)))


def test_vybes_tools_are_offered_with_a_store(toolbox):
    names = [spec.name for spec in toolbox.specs()]
    assert {"memory_set", "memory_get", "task_create", "task_note", "task_done"} <= set(names)


def test_without_a_store_only_the_file_tools_are_offered(tmp_path):
    names = [spec.name for spec in Toolbox(tmp_path, {}, BashPermission()).specs()]
    assert names == ["read", "write", "edit", "bash", "skill_load"]


def test_remember_then_memory_get_reads_it_back(store, toolbox):
    stored = call(
        toolbox, "c1", "memory_set", key="deploy.window", value="never on Fridays", kind="directive"
    )
    assert not stored.is_error
    found = call(toolbox, "c2", "memory_get", key="deploy.window")
    assert json.loads(found.text)["memory"]["value"] == "never on Fridays"
    entry = memory_actions.get(store, "vibey", key="deploy.window", scope="global", scope_id=None)
    assert entry["memory"]["kind"] == "directive"


def test_remember_rerun_after_a_crash_returns_its_first_result_and_writes_once(store, toolbox):
    first = call(toolbox, "c1", "memory_set", key="db", value="postgres 16")
    again = call(toolbox, "c1", "memory_set", key="db", value="postgres 16")
    assert again.text == first.text
    events = store.conn.execute("SELECT COUNT(*) FROM events WHERE kind = 'memory_set'")
    assert events.fetchone()[0] == 1


def test_remember_in_the_agents_own_scope(toolbox):
    call(toolbox, "c1", "memory_set", key="style", value="short replies", scope="agent")
    found = call(toolbox, "c2", "memory_get", key="style", scope="agent")
    assert json.loads(found.text)["memory"]["scope_id"] == "vibey"


def test_memory_get_of_an_unknown_key_is_an_error_result(toolbox):
    outcome = call(toolbox, "c1", "memory_get", key="nope")
    assert outcome.is_error and outcome.text.startswith("NOT_FOUND: no live memory")


def test_remember_with_a_bad_kind_is_an_error_result_naming_the_argument(toolbox):
    outcome = call(toolbox, "c1", "memory_set", key="k", value="v", kind="wish")
    assert outcome.is_error and outcome.text.startswith("INVALID_INPUT: kind:")


def test_an_unknown_argument_or_an_unbounded_limit_is_refused(toolbox):
    unknown = call(toolbox, "c1", "task_list", colour="red")
    assert unknown.is_error and "colour" in unknown.text
    unbounded = call(toolbox, "c2", "task_list", limit=-1)
    assert unbounded.is_error and unbounded.text.startswith("INVALID_INPUT: limit")


def test_a_task_is_created_noted_and_closed_through_the_tools(store, toolbox):
    made = json.loads(call(toolbox, "c1", "task_create", title="ship").text)
    task_id = made["task"]["id"]
    assert not call(toolbox, "c2", "task_note", task_id=task_id, message="half").is_error
    done = json.loads(call(toolbox, "c3", "task_done", task_id=task_id, note="ok").text)
    assert done["task"]["status"] == "completed"
    listed = json.loads(call(toolbox, "c4", "task_list", status="completed").text)
    assert [t["id"] for t in listed["tasks"]] == [task_id]
