"""A command line builds the parser of its own subcommand only; help and errors see them all."""

from __future__ import annotations

from vybe.cli.main import build


def test_a_subcommand_builds_no_parser_for_its_siblings():
    registry = build(["task", "list", "--ready"])
    assert "task list" in registry.commands
    assert "task create" not in registry.commands


def test_a_subcommand_keeps_the_top_level_commands_of_its_module():
    assert {"done", "block", "note"} <= set(build(["task", "list"]).commands)


def test_an_unknown_subcommand_builds_the_whole_group():
    assert "task create" in build(["task", "lst"]).commands


def test_a_top_level_command_with_an_argument_builds_its_module_once():
    registry = build(["done", "task_1", "--note", "ok"])
    assert not registry.skipped
    assert "done" in registry.commands


def test_group_help_lists_every_subcommand(vybe):
    text = vybe.ok("task", "--help")["help"]
    assert all(word in text for word in ("create", "claim", "list", "assign", "set-status"))


def test_schema_describes_every_task_subcommand(vybe):
    names = {c["command"] for c in vybe.ok("schema")["commands"]}
    assert {"task create", "task list", "task claim", "task assign"} <= names


def test_an_unknown_subcommand_error_lists_every_choice(vybe):
    result = vybe("task", "lst")
    assert result.error_code == "USAGE_ERROR"
    assert all(f"'{word}'" in result.envelope["error"] for word in ("create", "list", "assign"))
