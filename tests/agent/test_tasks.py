"""vybe's own tasks and memory as agent tools, on a real store, called as the runner calls them."""

from __future__ import annotations

import json

import pytest

from vybe.actions import memory as memory_actions
from vybe.agent.shell import BashPermission
from vybe.agent.tasks import TaskTools
from vybe.agent.tools import Toolbox
from vybe.llm.base import ToolCall
from vybe.store import Store


@pytest.fixture
def store(tmp_path):
    opened = Store(tmp_path / "vybe.db")
    yield opened
    opened.close()


@pytest.fixture
def toolbox(store, tmp_path):
    return Toolbox(tmp_path, {}, BashPermission(), TaskTools(store, "vibey", "s1"))


def call(toolbox, call_id: str, name: str, **arguments: object):
    return toolbox.run(ToolCall(call_id, name, dict(arguments)))


def test_memory_tools_are_offered_with_a_store(toolbox):
    names = [spec.name for spec in toolbox.specs()]
    assert "remember" in names and "memory_get" in names


def test_remember_then_memory_get_reads_it_back(store, toolbox):
    stored = call(
        toolbox, "c1", "remember", key="deploy.window", value="never on Fridays", kind="directive"
    )
    assert not stored.is_error
    found = call(toolbox, "c2", "memory_get", key="deploy.window")
    assert json.loads(found.text)["value"] == "never on Fridays"
    entry = memory_actions.get(store, "vibey", key="deploy.window", scope="global", scope_id=None)
    assert entry["memory"]["kind"] == "directive"


def test_remember_rerun_after_a_crash_returns_its_first_result_and_writes_once(store, toolbox):
    first = call(toolbox, "c1", "remember", key="db", value="postgres 16")
    again = call(toolbox, "c1", "remember", key="db", value="postgres 16")
    assert again.text == first.text
    events = store.conn.execute("SELECT COUNT(*) FROM events WHERE kind = 'memory_set'")
    assert events.fetchone()[0] == 1


def test_remember_in_the_agents_own_scope(toolbox):
    call(toolbox, "c1", "remember", key="style", value="short replies", scope="agent")
    found = call(toolbox, "c2", "memory_get", key="style", scope="agent")
    assert json.loads(found.text)["scope_id"] == "vibey"


def test_memory_get_of_an_unknown_key_is_an_error_result(toolbox):
    outcome = call(toolbox, "c1", "memory_get", key="nope")
    assert outcome.is_error and "no live memory" in outcome.text


def test_remember_with_a_bad_kind_is_an_error_result(toolbox):
    outcome = call(toolbox, "c1", "remember", key="k", value="v", kind="wish")
    assert outcome.is_error and "unknown kind" in outcome.text
