"""A command line finds its command by its first words, loading only that word's module;
help is plain text on stdout; a group alone or a wrong word is a usage error listing choices."""

from __future__ import annotations

import contextlib
import json
import os
import pty
import subprocess
import sys

from vybe.cli.commands import every, names
from vybe.cli.main import run
from vybe.cli.parsers import START_HERE, TAGLINE, find


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


def section(text: str, title: str) -> list[str]:
    """The names listed under one heading of a help text (up to the blank line after it)."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(title)) + 1
    end = lines.index("", start)
    return [line.split("  ")[1] for line in lines[start:end] if not line.startswith("   ")]


def subcommands(word: str) -> list[str]:
    """The commands `vybe WORD --help` lists, each checked to be in that group."""
    listed = section(run([word, "--help"])[1], "subcommands:")
    assert all(name.startswith(word + " ") for name in listed)
    return listed


def test_top_level_help_opens_with_the_tagline_then_where_to_start():
    code, text = run(["--help"])
    lines = text.split("\n")
    assert code == 0 and lines[0] == TAGLINE and lines[2] == "usage: vybe <command> [options]"
    assert section(text, "start here:") == ["setup", "resume", "search", "status", "ui"]
    assert "--agent" in text


def test_every_help_line_fits_in_100_characters():
    texts = [run(["--help"])[1], *(run([word, "--help"])[1] for word in every().groups)]
    assert max(len(line) for text in texts for line in text.split("\n")) <= 100


def test_every_group_has_a_line_with_its_summary():
    catalog = every()
    text = run(["--help"])[1]
    assert section(text, "groups") == list(catalog.groups)
    assert all(f"  {summary}" in text for summary in catalog.groups.values())


def test_every_command_is_listed_once_at_the_top_or_under_its_group():
    catalog = every()
    text = run(["--help"])[1]
    top = section(text, "start here:") + section(text, "other commands:")
    grouped = [name for word in catalog.groups for name in subcommands(word)]
    expected = set(names(catalog)) - set(catalog.groups)
    listed = top + grouped
    assert sorted(listed) == sorted(expected)


def test_only_start_here_commands_that_exist_are_listed():
    catalog = every()
    start = section(run(["--help"])[1], "start here:")
    assert start == [name for name in START_HERE if name in catalog.operations]


def test_vybe_alone_in_a_terminal_prints_the_help(tmp_path):
    leader, follower = pty.openpty()
    env = {**os.environ, "HOME": str(tmp_path), "VYBE_CONFIG_DIR": str(tmp_path / "config")}
    with subprocess.Popen(
        [sys.executable, "-m", "vybe"], stdout=follower, stderr=subprocess.DEVNULL, env=env
    ) as process:
        os.close(follower)
        received = b""
        with contextlib.suppress(OSError):  # the terminal's end reads EIO once vybe exits
            while chunk := os.read(leader, 65536):
                received += chunk
        os.close(leader)
    assert process.returncode == 0
    assert received.decode().replace("\r\n", "\n") == run(["--help"])[1] + "\n"


def test_vybe_alone_in_a_pipe_prints_the_json_overview():
    code, text = run([])
    assert code == 0 and "task create" in json.loads(text)["data"]["commands"]


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
