"""`vybe hook run <target>` and `vybe statusline` are commands like the others (help, `vybe
schema`, docs/cli.md) while the executable serves them without the CLI's parser; global
flags anywhere on their line act as on every command line, never an "unknown command".

Each line runs in-process through the executable's own entry point (vybe.cli.entry.main),
with the payload on stdin, as Claude Code or Codex would run it."""

from __future__ import annotations

import gc
import json

import pytest

from tests.conftest import in_process
from vybe.cli import entry, flags, reference
from vybe.cli.admin import describe
from vybe.cli.main import run

PROMPT = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "add a test"}


def executable(vybe, argv: list[str], payload: object = None, env: dict | None = None):
    """`vybe <argv>` as the executable runs it: (exit code, stdout)."""
    stdin = json.dumps(payload).encode() if payload is not None else b""
    collecting = gc.isenabled()  # the hook path switches the collector off for its process
    with in_process(env or vybe.env, stdin, cwd=vybe.home, argv=argv) as streams:
        try:
            code = entry.main()
        except SystemExit as leaving:  # a line the CLI's parser served: the same handler
            code = leaving.code
        finally:
            if collecting:
                gc.enable()
    return code, streams.out


def prompts_by(vybe, **options: str) -> list[str]:
    """Who each recorded prompt was typed to, oldest first."""
    extra = [f"--{name.replace('_', '-')}={value}" for name, value in options.items()]
    events = vybe.ok("events", "--all", "--kind", "user_prompt", *extra)["events"]
    return [e["agent_name"] for e in reversed(events)]


def summaries(argv: list[str]) -> dict[str, str]:
    """The lines of a help text, by the command each one names."""
    code, text = run(argv)
    assert code == 0
    return {line.split("  ")[1].strip(): line for line in text.splitlines() if "  " in line}


def test_help_lists_hook_run_and_statusline_with_their_summaries():
    assert "hook event" in summaries(["hook", "--help"])["hook run"]
    assert "status line" in summaries(["--help"])["statusline"]


def test_the_schema_describes_hook_run_with_its_target_and_statusline(vybe):
    commands = {c["command"]: c for c in vybe.ok("schema")["commands"]}
    [target] = commands["hook run"]["args_schema"]
    assert (target["name"], target["choices"], target["default"]) == (
        "target",
        ["claude", "codex", "gemini"],
        "claude",
    )
    assert target["positional"]
    assert commands["statusline"]["args_schema"] == []
    assert commands["statusline"]["mcp_tool"] is None


def test_the_reference_documents_hook_run_and_statusline():
    doc = reference.DOC.read_text(encoding="utf-8")
    hook_run = doc.split("### `vybe hook run`", 1)[1].split("### ", 1)[0]
    assert "| `target` | `TARGET` or `--target` | one of `claude`, `codex`, `gemini` |" in hook_run
    assert "### `vybe statusline`" in doc


@pytest.mark.parametrize("argv", [["hook", "run", "--help"], ["statusline", "-h"]])
def test_help_on_a_hook_line_is_the_commands_help_not_a_hook_call(vybe, argv):
    vybe.initialized()
    before = vybe.dump()
    code, out = executable(vybe, argv, PROMPT)
    assert code == 0
    assert out.startswith(f"usage: vybe {' '.join(argv[:-1])} [-h]")
    assert "examples:" in out
    assert vybe.dump() == before


@pytest.mark.parametrize(
    "argv",
    [
        ["--agent", "reviewer", "hook", "run", "claude"],
        ["-a", "reviewer", "hook", "run", "claude"],
        ["--agent=reviewer", "hook", "run", "claude"],
        ["hook", "run", "claude", "--agent", "reviewer"],
        ["hook", "--agent", "reviewer", "run"],
        ["--request-id", "r1", "--agent", "reviewer", "hook", "run", "claude"],
        # Lines only the CLI's parser reads: served by the same handler.
        ["--agent", "reviewer", "hook", "run", "--target", "claude"],
        ["--agent", "reviewer", "hook", "run", "--", "claude"],
    ],
)
def test_a_global_agent_anywhere_on_a_hook_line_records_the_prompt_as_that_agent(vybe, argv):
    code, out = executable(vybe, argv, PROMPT)
    assert (code, out) == (0, "")
    assert prompts_by(vybe) == ["reviewer"]


def test_the_agent_flag_wins_over_vybe_agent_and_without_either_the_target_acts(vybe):
    executable(vybe, ["hook", "run", "codex"], PROMPT)
    executable(vybe, ["hook", "run", "claude"], PROMPT, env={**vybe.env, "VYBE_AGENT": "env"})
    flagged = ["--agent", "flag", "hook", "run", "claude"]
    executable(vybe, flagged, PROMPT, env={**vybe.env, "VYBE_AGENT": "env"})
    assert prompts_by(vybe) == ["codex", "env", "flag"]


def test_a_global_db_path_sends_the_hook_to_that_store_over_the_environments(vybe, tmp_path):
    """Over VYBE_DB_URL too, as on every command line: the flag's store replaces the
    environment's."""
    other = tmp_path / "other.db"
    env = {**vybe.env, "VYBE_DB_URL": "postgresql://nobody@127.0.0.1:1/none"}
    code, _ = executable(vybe, ["hook", "run", "claude", f"--db-path={other}"], PROMPT, env)
    assert code == 0
    assert not (vybe.home / "config" / "hooks.log").exists()
    assert prompts_by(vybe, db_path=str(other)) == ["claude"]


def test_the_status_line_takes_its_agent_from_a_global_flag(vybe):
    task = vybe.task("Port billing to Go")
    vybe.ok("task", "begin", "--id", task, agent="reviewer")
    payload = {"session_id": "s1", "cwd": str(vybe.home)}
    lines = [
        executable(vybe, argv, payload) for argv in (["statusline"], ["-a=reviewer", "statusline"])
    ]
    assert [(code, out.split(" · ")[1]) for code, out in lines] == [
        (0, "no compaction yet"),
        (0, "Port billing to Go"),
    ]


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["hook", "run", "claud"], "'claud' is not one of claude, codex"),
        (["hook", "run", "claude", "extra"], "unrecognized arguments: extra"),
        (["hook", "run", "claude", "--agent"], "--agent needs a value"),
        (["statusline", "now"], "unrecognized arguments: now"),
    ],
)
def test_a_malformed_hook_line_is_a_usage_error_that_records_nothing_and_blocks_nothing(
    vybe, argv, problem
):
    """Exit 1, not the CLI's 2: Claude Code erases the prompt of a UserPromptSubmit hook
    that exits 2."""
    vybe.initialized()
    before = vybe.dump()
    code, out = executable(vybe, argv, PROMPT)
    envelope = json.loads(out)
    assert (code, envelope["error_code"]) == (1, "USAGE_ERROR")
    assert problem in envelope["error"]
    assert vybe.dump() == before


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "run"],
        ["hook", "run", "claude"],
        ["hook", "run", "codex"],
        ["statusline"],
        ["--agent", "x", "hook", "run", "codex"],
        ["--db-path", "/tmp/v.db", "statusline"],
    ],
)
def test_the_executable_serves_a_hook_line_itself(argv):
    assert entry.hook_line(argv) is not None


@pytest.mark.parametrize(
    "argv",
    [
        ["hook", "run", "--help"],
        ["hook", "run", "--target", "codex"],
        ["hook", "run", "claud"],
        ["hook", "install"],
        ["statusline", "--help"],
        ["--agent", "statusline"],  # an agent named statusline, no command
        ["task", "list", "--title", "hook run"],
    ],
)
def test_the_executable_leaves_every_other_line_to_the_cli(argv):
    assert entry.hook_line(argv) is None


def test_the_flags_taken_out_of_a_line_are_the_ones_help_lists():
    listed = {flag for option in describe()["global_flags"] for flag in option["flags"]}
    assert listed == set(flags.BY_FLAG)
    for flag in listed:
        taken, rest = flags.split_globals([flag, "x", "task", "list"])
        assert rest == ["task", "list"] and list(taken.values()) == ["x"]
