"""Every command answers with exactly one JSON envelope and a stable exit code."""

from __future__ import annotations

import subprocess

from tests.conftest import VYBE


def test_bare_vybe_lists_version_and_commands(vybe):
    data = vybe.ok()
    assert data["version"]
    assert "task create" in data["commands"]


def test_missing_required_flag_is_a_usage_error_with_exit_2(vybe):
    result = vybe("task", "create")
    assert result.code == 2
    assert result.error_code == "USAGE_ERROR"


def test_unknown_command_is_a_usage_error(vybe):
    result = vybe("frobnicate")
    assert result.code == 2
    assert result.error_code == "USAGE_ERROR"


def test_global_flags_work_before_and_after_the_subcommand(vybe):
    before = vybe.ok("--agent", "alice", "task", "create", "--title", "x")
    after = vybe.ok("task", "create", "--title", "y", "--agent=bob")
    events = vybe.ok("events", "--all", "--asc")["events"]
    assert [e["agent_name"] for e in events] == ["alice", "bob"]
    assert before["task"]["id"] != after["task"]["id"]


def test_schema_describes_every_registered_command(vybe):
    schema = vybe.ok("schema")
    names = {c["command"] for c in schema["commands"]}
    assert names == set(vybe.ok()["commands"])
    create = next(c for c in schema["commands"] if c["command"] == "task create")
    assert create["mutates"] is True
    assert any(a["name"] == "title" and a["required"] for a in create["args_schema"])


def test_pretty_json_indents(vybe):
    vybe.env["VYBE_PRETTY_JSON"] = "1"
    out = subprocess.run([VYBE], capture_output=True, text=True, env=vybe.env).stdout
    assert out.startswith("{\n")
