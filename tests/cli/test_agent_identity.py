"""Who acts is named, never assumed: --agent, VYBE_AGENT or config.yaml's default_agent.

A command that acts as an agent with none named refuses (AGENT_REQUIRED, naming the three
ways) and writes nothing; reads that need no agent still answer. Names are kept exactly as
given: ``A1`` and ``a1`` are two agents, with two request-id ledgers."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.conftest import VYBE

ACTING = (
    ("task", "create", "--title", "t"),
    ("task", "begin", "--task-id", "{task}"),
    ("task", "claim", "--next"),
    ("task", "heartbeat", "--task-id", "{task}"),
    ("task", "assign", "--task-id", "{task}", "--to", "reviewer"),
    ("done", "{task}", "--note", "finished"),
    ("block", "{task}", "--reason", "waiting", "--failure"),
    ("note", "{task}", "progress"),
    ("remember", "k=v"),
    ("memory", "set", "-k", "k", "-v", "v"),
    ("memory", "delete", "-k", "k"),
    ("memory", "list", "--scope", "agent"),
    ("push", "--json", '{"event": {"kind": "progress", "message": "m"}}'),
    ("resume",),
    ("resume", "--peek"),
    ("focus",),
    ("brief",),
    ("project", "create", "--name", "p"),
    ("project", "focus", "--project-id", "{project}"),
    ("artifacts", "add", "--task-id", "{task}", "--path", "out.txt"),
    ("maintain",),
)

READING = (
    ("task", "list"),
    ("task", "get", "--task-id", "{task}"),
    ("events",),
    ("events", "--task-id", "{task}"),
    ("memory", "list"),
    ("memory", "get", "-k", "shared"),
    ("project", "list"),
    ("artifacts", "list", "--task-id", "{task}"),
    ("status",),
    ("schema",),
)


def _filled(line: tuple[str, ...], ids: dict[str, str]) -> list[str]:
    return [
        word.replace("{task}", ids["task"]).replace("{project}", ids["project"]) for word in line
    ]


@pytest.fixture
def unnamed(vybe):
    """A store with a task, a project and a global memory, and no agent named anywhere."""
    ids = {
        "task": vybe.task("t", agent="seeder"),
        "project": vybe.ok("project", "create", "--name", "p", agent="seeder")["project"]["id"],
    }
    vybe.ok("memory", "set", "-k", "shared", "-v", "yes", agent="seeder")
    (vybe.config_dir / "config.yaml").unlink()
    vybe.env.pop("VYBE_AGENT", None)
    return ids


@pytest.mark.parametrize("line", ACTING, ids=" ".join)
def test_a_command_that_acts_refuses_with_no_agent_named_and_writes_nothing(vybe, unnamed, line):
    result = vybe.refused("AGENT_REQUIRED", *_filled(line, unnamed))
    ways = result.envelope["error_context"]["ways"]
    assert ways == ["--agent NAME", "VYBE_AGENT=NAME", "config.yaml: default_agent"]
    assert "vybe init --agent NAME" in result.envelope["suggested_action"]


@pytest.mark.parametrize("line", READING, ids=" ".join)
def test_a_read_that_needs_no_agent_answers_with_none_named(vybe, unnamed, line):
    vybe.ok(*_filled(line, unnamed))


def test_events_with_no_agent_named_are_every_agents(vybe, unnamed):
    kinds = {e["agent_name"] for e in vybe.ok("events")["events"]}
    assert kinds == {"seeder"}


def test_status_with_no_agent_named_says_so(vybe, unnamed):
    assert vybe.ok("status")["agent"] is None


@pytest.mark.parametrize("way", ("flag", "env", "config"))
def test_each_of_the_three_ways_names_the_agent(vybe, unnamed, way):
    if way == "flag":
        made = vybe.ok("task", "create", "--title", "x", "--agent", "w1")
    elif way == "env":
        vybe.env["VYBE_AGENT"] = "w1"
        made = vybe.ok("task", "create", "--title", "x")
    else:
        (vybe.config_dir / "config.yaml").write_text("default_agent: w1\n")
        made = vybe.ok("task", "create", "--title", "x")
    event = vybe.ok("events", "--task-id", made["task"]["id"])["events"][0]
    assert event["agent_name"] == "w1"


def test_init_with_an_agent_writes_default_agent_and_keeps_the_rest(vybe, unnamed):
    config_file = vybe.config_dir / "config.yaml"
    config_file.write_text("# mine\nclaim_lease: 30m\ndefault_agent: old\n")
    written = vybe.ok("init", "--agent", "Builder-1")
    assert written["default_agent_written"] == str(config_file)
    assert config_file.read_text() == '# mine\nclaim_lease: 30m\ndefault_agent: "Builder-1"\n'
    assert oct(config_file.stat().st_mode & 0o777) == "0o600"
    assert vybe.ok("status")["agent"] == "Builder-1"


def test_init_quotes_a_name_yaml_would_read_otherwise(vybe, unnamed):
    vybe.ok("init", "--agent", "a: b")
    assert vybe.ok("status")["agent"] == "a: b"


def test_init_without_an_agent_writes_no_config(vybe, unnamed):
    assert vybe.ok("init")["default_agent_written"] is None
    assert not (vybe.config_dir / "config.yaml").exists()


def test_names_are_kept_exactly_so_a1_and_A1_are_two_agents(vybe):
    first = vybe.ok("task", "create", "--title", "x", "--request-id", "r1", agent="A1")
    second = vybe.ok("task", "create", "--title", "x", "--request-id", "r1", agent="a1")
    assert first["task"]["id"] != second["task"]["id"]
    agents = {e["agent_name"] for e in vybe.ok("events", "--all")["events"]}
    assert {"A1", "a1"} <= agents


@pytest.mark.parametrize("name", (" padded", "padded ", "two\nlines"))
def test_a_name_that_cannot_be_kept_exactly_is_refused(vybe, name):
    result = vybe.refused("INVALID_INPUT", "task", "create", "--title", "x", "--agent", name)
    assert result.envelope["error_context"]["field"] == "agent"


def test_agent_scoped_memory_is_the_exact_name(vybe):
    vybe.ok("memory", "set", "-k", "k", "-v", "mine", "--scope", "agent", agent="Ann")
    assert vybe.ok("memory", "list", "--scope", "agent", agent="ann")["count"] == 0
    entry = vybe.ok("memory", "get", "-k", "k", "--scope", "agent", agent="Ann")["memory"]
    assert entry["scope_id"] == "Ann"


@pytest.mark.parametrize("target", ("claude", "codex"))
def test_a_hook_acts_as_its_target_with_no_agent_named(vybe, unnamed, target):
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "hi there"}
    done = subprocess.run(
        [VYBE, "hook", "run", target],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=vybe.env,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    agents = {e["agent_name"] for e in vybe.ok("events", "--all")["events"]}
    assert target in agents
