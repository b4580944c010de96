"""A command line finds its command by its first words, loading only that word's module;
help is plain text on stdout; a group alone or a wrong word is a usage error listing choices."""

from __future__ import annotations

import json
import subprocess
import sys

from vybe.cli.main import run
from vybe.cli.parsers import find


def test_a_subcommand_loads_only_its_own_modules_declarations():
    catalog, command, tokens = find(["task", "list", "--ready"])
    assert command.name == "task list" and tokens == ["--ready"]
    assert not any(name.startswith("memory") for name in catalog.operations)


def test_an_older_form_finds_its_alias():
    catalog, command, tokens = find(["done", "task_1", "--note", "ok"])
    assert (command.name, catalog.target(command).name) == ("done", "task done")
    assert tokens == ["task_1", "--note", "ok"]


def test_help_is_plain_text_with_examples():
    code, text = run(["task", "create", "--help"])
    assert code == 0 and text.startswith("usage: vybe task create")
    assert "examples:\n  vybe task create --title" in text


def test_help_reaches_stdout_as_plain_text_through_the_executable():
    done = subprocess.run(
        [sys.executable, "-m", "vybe", "task", "list", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.startswith("usage: vybe task list") and "\\n" not in done.stdout


def test_group_help_lists_every_subcommand():
    code, text = run(["task", "--help"])
    assert code == 0
    assert all(f"task {word}" in text for word in ("create", "claim", "list", "assign"))


def test_top_level_help_lists_every_command():
    code, text = run(["--help"])
    assert code == 0 and "task create" in text and "remember" in text and "--agent" in text


def test_a_group_alone_is_a_usage_error_listing_its_subcommands():
    code, text = run(["task"])
    envelope = json.loads(text)
    assert (code, envelope["error_code"]) == (2, "USAGE_ERROR")
    assert "task create" in envelope["error_context"]["subcommands"]


def test_an_unknown_subcommand_error_lists_every_choice():
    code, text = run(["task", "lst"])
    envelope = json.loads(text)
    assert (code, envelope["error_code"]) == (2, "USAGE_ERROR")
    assert {"task create", "task list", "task assign"} <= set(
        envelope["error_context"]["subcommands"]
    )


def test_an_unknown_command_is_a_usage_error_listing_every_command():
    code, text = run(["nosuch"])
    envelope = json.loads(text)
    assert (code, envelope["error_code"]) == (2, "USAGE_ERROR")
    assert "remember" in envelope["error_context"]["commands"]


def test_schema_describes_every_task_subcommand(vybe):
    names = {c["command"] for c in vybe.ok("schema")["commands"]}
    assert {"task create", "task list", "task claim", "task assign", "done"} <= names
