"""Start-up guard: the hook and the frequent commands import no heavy or unused module.

Each one runs in a fresh interpreter as the `vybe` executable would, and the modules it
loaded are compared against a list. A regression test, not a timed one: import cost is
what made these commands slow (docs/architecture.md, performance budgets).
"""

from __future__ import annotations

import ast
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import VYBE

# Never on any of these paths: SDKs, parsers, the engine, the model interface, and
# modules only a failure or a retry needs.
HEAVY = {
    "httpx",
    "yaml",
    "mcp",
    "anthropic",
    "openai",
    "typing",
    "shutil",
    "random",
    "traceback",
    "vybe.llm",
    "vybe.agent",
    "vybe.context.engine",
    "vybe.context.budget",
    # The PostgreSQL driver (~180 ms) and the store on it come in only when a URL is set.
    "psycopg",
    "vybe.store.postgres",
    "vybe.store.dialect",
    # dataclasses (with inspect) cost a process ~7 ms: domain types on these paths are
    # named tuples instead.
    "dataclasses",
    "inspect",
    # pathlib (with urllib.parse and ipaddress) costs a process ~3 ms: paths on these
    # paths are strings handled with os.path.
    "pathlib",
    # hashlib loads OpenSSL (~2.4 ms): digests come from vybe.digest's built-in SHA-256.
    "hashlib",
    # The engine's checkpoints, their types and their SQL: no hook reads or writes one.
    "vybe.context.checkpoints",
    "vybe.store.checkpoints",
}
# A hook answers before argparse or the declarations of the commands could be of any use,
# and without json, which compiles regular expressions on import (~1.2 ms, and re): its
# JSON goes through vybe.jsonio, which calls json's own C accelerator. A command parses its
# line with argparse, which imports re anyway, and prints its envelope with json.
# Nor contextlib (with abc's machinery, ~4M instructions a process, 3.5% of a session
# start's): the hook path's context managers are small classes.
HOOK_ONLY = {
    "argparse",
    "contextlib",
    "json",
    "vybe.cli.main",
    "vybe.cli.commands",
    "vybe.operations",
}

# Imports nothing of its own (not even json) that the command would not.
RUN = """
import sys
from vybe.cli.entry import main
sys.argv = ["vybe", *sys.argv[1:]]
main()
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)))
"""

pytestmark = pytest.mark.sqlite_only(
    "the start-up import guards hold on SQLite; a URL loads psycopg by design"
)


FIXTURES = Path(__file__).parent.parent / "integrations" / "fixtures"


def loaded(vybe, args: list[str], payload: dict | None = None) -> set[str]:
    stdin = json.dumps(payload) if payload else ""
    done = subprocess.run(
        [sys.executable, "-c", RUN, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=vybe.env,
        check=True,
    )
    return set(done.stderr.rsplit("MODULES ", 1)[1].split())


# The events both agents send vybe's hooks, as payload fields.
SHARED_EVENTS = [
    {"hook_event_name": "UserPromptSubmit", "prompt": "add a test"},
    {"hook_event_name": "UserPromptSubmit", "prompt": "where are we?"},
    {"hook_event_name": "SessionStart", "source": "startup"},
    {"hook_event_name": "SessionStart", "source": "compact"},
]


def heavy_in(modules: set[str], names: set[str]) -> set[str]:
    """The loaded modules that are, or are inside, one of ``names``."""
    return {m for m in modules if m in names or any(m.startswith(n + ".") for n in names)}


@pytest.mark.parametrize(
    "event",
    [
        *SHARED_EVENTS,
        {"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "error": "exit 1"},
    ],
)
def test_claude_hook_imports_no_heavy_module(vybe, tmp_path, event):
    payload = {"session_id": "s1", "cwd": str(tmp_path), **event}
    modules = loaded(vybe, ["hook", "run", "claude"], payload)
    assert "vybe.integrations.hooks.claude_code" in modules
    assert not (vybe.home / "config" / "hooks.log").exists()
    assert heavy_in(modules, HEAVY | HOOK_ONLY) == set()


@pytest.mark.parametrize("target", ["claude", "codex"])
@pytest.mark.parametrize("source", ["startup", "compact"])
def test_session_start_imports_no_regular_expressions(vybe, tmp_path, target, source):
    """re with enum costs ~2.5 ms: only a handler that matches text imports it (the
    executable is a script file, not pip's wrapper, for the same reason); the person's
    words are ranked, when they do not all fit the compaction's budget, with str methods."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    for prompt in ("use tabs", "ok", "never push to main", "a pasted log line\n" * 1000):
        loaded(
            vybe,
            ["hook", "run", target],
            {**payload, "hook_event_name": "UserPromptSubmit", "prompt": prompt},
        )
    modules = loaded(vybe, ["hook", "run", target], {**payload, "source": source})
    assert f"vybe.integrations.hooks.{'claude_code' if target == 'claude' else target}" in modules
    assert heavy_in(modules, {"re", "enum"}) == set()


def test_vybe_executable_imports_no_regular_expressions(vybe, tmp_path):
    """The installed script itself, as a hook runs it: pip's entry-point wrapper imported re."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", VYBE, "hook", "run", "claude"],
        input=json.dumps({**payload, "source": "startup"}),
        capture_output=True,
        text=True,
        env=vybe.env,
        check=True,
    )
    modules = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "vybe.integrations.hooks.claude_code" in modules
    assert heavy_in(modules, {"re", "enum", "json"}) == set()


@pytest.mark.parametrize(
    "event", [*SHARED_EVENTS, {"hook_event_name": "PostToolUse", "tool_response": {"exit_code": 1}}]
)
def test_codex_hook_imports_no_heavy_module(vybe, tmp_path, event):
    """Nor does it read Codex's config.toml: whether Codex trusts the hooks is doctor's
    question (``vybe doctor``, ``vybe hook install --codex``), never a hook's."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), **event}
    modules = loaded(vybe, ["hook", "run", "codex"], payload)
    assert "vybe.integrations.hooks.codex" in modules
    assert not (vybe.home / "config" / "hooks.log").exists()
    trust = {"tomllib", "vybe.integrations.setup.codex_config"}
    assert heavy_in(modules, HEAVY | HOOK_ONLY | trust) == set()


# A Gemini CLI session as its hooks see it, in order: a start, the first prompt (the brief
# with it), a status question, a failed tool call, the turn's reply, /compress and the next
# prompt (the person's words given back), the end.
GEMINI_SESSION = [
    {"hook_event_name": "SessionStart", "source": "startup"},
    {"hook_event_name": "BeforeAgent", "prompt": "add a test"},
    {"hook_event_name": "BeforeAgent", "prompt": "where are we?"},
    {
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "false"},
        "tool_response": {"llmContent": "Exit Code: 1", "error": {"message": "Exit Code: 1"}},
    },
    {"hook_event_name": "AfterAgent", "prompt": "add a test", "prompt_response": "done"},
    {"hook_event_name": "PreCompress", "trigger": "manual"},
    {"hook_event_name": "BeforeAgent", "prompt": "go on"},
    {"hook_event_name": "SessionEnd", "reason": "exit"},
]


def gemini_session(vybe, tmp_path) -> list[set[str]]:
    """The modules each hook of GEMINI_SESSION loaded, in its own process."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "timestamp": "2026-12-05T22:43:50Z"}
    return [loaded(vybe, ["hook", "run", "gemini"], {**payload, **e}) for e in GEMINI_SESSION]


def test_gemini_hooks_import_no_heavy_module(vybe, tmp_path):
    """Every event of a Gemini CLI session, the brief and the words given back among them:
    its hooks keep the start-up budget of Claude Code's and Codex's."""
    for event, modules in zip(GEMINI_SESSION, gemini_session(vybe, tmp_path), strict=True):
        assert "vybe.integrations.hooks.gemini" in modules, event
        assert heavy_in(modules, HEAVY | HOOK_ONLY) == set(), event
    assert not (vybe.home / "config" / "hooks.log").exists()


@pytest.mark.parametrize(
    ("args", "also"),
    [
        (["resume", "--peek"], set()),
        (["resume"], set()),
        (["status"], set()),
        (["task", "list"], set()),
        (["task", "list", "--status", "pending", "--limit=5", "--ready"], set()),
    ],
)
def test_frequent_command_imports_no_heavy_module(vybe, args, also):
    vybe("init")
    modules = loaded(vybe, args)
    assert "vybe.cli.commands" in modules
    assert heavy_in(modules, HEAVY | also) == set()


def test_the_status_line_imports_no_heavy_module_and_no_regular_expressions(vybe, tmp_path):
    """Claude Code runs it after every message: the hook path's budget and its rules. It
    counts compactions and messages: the record's writer (vybe.store.record, which the
    receipts' writers load) stays out."""
    vybe.ok("init")
    modules = loaded(vybe, ["statusline"], {"session_id": "s1", "cwd": str(tmp_path)})
    assert "vybe.integrations.hooks.statusline" in modules
    assert heavy_in(modules, HEAVY | HOOK_ONLY | {"re", "enum", "vybe.store.record"}) == set()


@pytest.mark.parametrize(
    "line",
    [
        ["--agent", "reviewer", "hook", "run", "claude"],
        ["hook", "run", "codex", "-a=reviewer", "--db-path", "{db}"],
        ["--db-path={db}", "--agent", "reviewer", "statusline"],
    ],
)
def test_a_hook_line_with_global_flags_takes_the_hook_path(vybe, tmp_path, line):
    """Where the flags stand changes nothing: the executable takes them out itself."""
    vybe.ok("init")
    payload = {"session_id": "s1", "cwd": str(tmp_path), **SHARED_EVENTS[0]}
    modules = loaded(vybe, [word.replace("{db}", str(vybe.db_path)) for word in line], payload)
    assert not (vybe.home / "config" / "hooks.log").exists()
    assert heavy_in(modules, HEAVY | HOOK_ONLY | {"re", "enum"}) == set()


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_a_session_end_loads_no_process_machinery_while_housekeeping_is_not_due(
    vybe, tmp_path, target
):
    """subprocess (with re, enum, locale, threading, selectors) costs a fifth of a bare
    interpreter's start: a session's end loads it only to hand housekeeping on."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit"}
    loaded(vybe, ["hook", "run", target], {**payload, "prompt": "a conversation to end"})
    (vybe.home / "config").mkdir(exist_ok=True)
    (vybe.home / "config" / "maintain.stamp").touch()  # housekeeping ran a moment ago
    end = {**payload, "hook_event_name": "SessionEnd", "reason": "other"}
    modules = loaded(vybe, ["hook", "run", target], end)
    assert not (vybe.home / "config" / "hooks.log").exists()
    assert vybe.ok("events", "--all", "--kind", "session_end")["events"]
    assert heavy_in(modules, HEAVY | HOOK_ONLY | {"subprocess", "re", "enum"}) == set()


def imported_rows(vybe, session: str) -> list[str]:
    conn = sqlite3.connect(vybe.db_path)
    try:
        rows = conn.execute(
            "SELECT type FROM messages WHERE session_id = ? ORDER BY context_seq", (session,)
        )
        return [kind for (kind,) in rows]
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("target", "transcript", "also"),
    [
        ("claude", "transcript.jsonl", {"re", "enum"}),
        ("codex", "rollout.jsonl", set()),  # its failed command's output has an exit line
    ],
)
def test_a_stop_that_imports_the_transcript_loads_neither_the_engine_nor_re(
    vybe, tmp_path, target, transcript, also
):
    """Stop imports the turn's transcript lines on every turn: the importer records through
    the stdlib-only recorder, not through the engine's model types (dataclasses, inspect and
    typing cost Stop ~67 ms), and compiles no pattern for lines that cannot match one."""
    vybe.ok("init")
    payload = {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "hook_event_name": "Stop",
        "transcript_path": str(FIXTURES / target / transcript),
    }
    modules = loaded(vybe, ["hook", "run", target], payload)
    assert not (vybe.home / "config" / "hooks.log").exists()
    assert {"user", "assistant", "tool"} <= set(imported_rows(vybe, f"{target}:s1"))
    assert heavy_in(modules, HEAVY | HOOK_ONLY | {"vybe.context.record"} | also) == set()


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_session_end_and_pre_compact_load_no_heavy_module(vybe, tmp_path, target):
    vybe.ok("init")
    base = {"session_id": "s1", "cwd": str(tmp_path), "transcript_path": ""}
    for event in ("SessionEnd", "PreCompact"):
        payload = {**base, "hook_event_name": event, "reason": "other", "trigger": "auto"}
        modules = loaded(vybe, ["hook", "run", target], payload)
        assert heavy_in(modules, HEAVY | HOOK_ONLY | {"re", "enum"}) == set(), event
    assert not (vybe.home / "config" / "hooks.log").exists()


# What a SessionStart after a compaction loads beyond a startup's: the record's rows, the
# choice of the person's words, the compaction's receipt and its line. Nothing else (a
# hand-off's context, the receipts' reports) unless the brief has one to show.
COMPACT_ONLY = {
    "vybe.context",
    "vybe.context.receipt",
    "vybe.context.tokens",
    "vybe.context.types",
    "vybe.store.record",
    "vybe.store.receipts",
    "vybe.actions.user_words",
    "vybe.integrations.hooks.compaction",
}


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_a_session_start_after_compaction_loads_only_what_it_gives_back(vybe, tmp_path, target):
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    prompt = {**payload, "hook_event_name": "UserPromptSubmit", "prompt": "use tabs"}
    loaded(vybe, ["hook", "run", target], prompt)
    startup = loaded(vybe, ["hook", "run", target], {**payload, "source": "startup"})
    compact = loaded(vybe, ["hook", "run", target], {**payload, "source": "compact"})
    assert compact - startup == COMPACT_ONLY
    assert not (vybe.home / "config" / "hooks.log").exists()


# The shared handlers of the other events: a hook process handles one event.
OTHER_EVENTS = {
    f"vybe.integrations.hooks.{name}"
    for name in ("prompt", "stop", "session_end", "tool_failure", "pre_compact", "transcript")
}


@pytest.mark.parametrize("target", ["claude", "codex"])
@pytest.mark.parametrize("source", ["startup", "compact"])
def test_a_session_start_without_a_focus_task_loads_no_task_rows_and_no_redaction_rules(
    vybe, tmp_path, target, source
):
    """A brief with no task to focus reads no task's artifacts or hand-off, and picks its
    focus without the task actions; a compaction's receipt, lists of numbers, goes to the
    ledger without the redaction rules; no other event's handler is loaded."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    prompt = {**payload, "hook_event_name": "UserPromptSubmit", "prompt": "use tabs"}
    loaded(vybe, ["hook", "run", target], prompt)
    modules = loaded(vybe, ["hook", "run", target], {**payload, "source": source})
    assert not (vybe.home / "config" / "hooks.log").exists()
    unused = {"vybe.actions.tasks", "vybe.store.artifacts", "vybe.store.handoffs"}
    assert heavy_in(modules, unused | {"vybe.privacy.rules"} | OTHER_EVENTS) == set()


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_a_prompt_that_asks_nothing_about_status_compiles_no_pattern(vybe, tmp_path, target):
    """Every prompt is checked for a status question ("where are we?"): by its words first,
    so re (with enum, ~2.5 ms) is loaded only for a prompt that holds one."""
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit"}
    modules = loaded(vybe, ["hook", "run", target], {**payload, "prompt": "add a test"})
    assert heavy_in(modules, {"re", "enum"}) == set()
    asked = loaded(vybe, ["hook", "run", target], {**payload, "prompt": "where are we?"})
    assert "re" in asked


def test_every_module_keeps_its_type_only_imports_behind_one_flag():
    """Type-only imports stand under ``if TYPE_CHECKING:`` with ``TYPE_CHECKING = False``
    set by the module itself (docs/architecture.md, Types): none imports the flag from
    typing, so no module need know whether a start-up path loads it."""
    source = Path(__file__).parents[2] / "src"
    astray = []
    for path in sorted(source.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        flag = ast.parse("TYPE_CHECKING = False").body[0]
        sets_it = any(ast.dump(node) == ast.dump(flag) for node in tree.body)
        for node in ast.walk(tree):
            imported = isinstance(node, ast.ImportFrom) and any(
                alias.name == "TYPE_CHECKING" for alias in node.names
            )
            attribute = isinstance(node, ast.Attribute) and node.attr == "TYPE_CHECKING"
            used = isinstance(node, ast.Name) and node.id == "TYPE_CHECKING"
            if imported or attribute or (used and not sets_it):
                astray.append(f"{path.relative_to(source)}:{node.lineno}")
    assert astray == []


def test_config_yaml_is_parsed_once_after_an_edit_and_read_from_the_cache_after(vybe, tmp_path):
    config_file = vybe.home / "config" / "config.yaml"
    config_file.write_text("default_agent: editor\nbusy_timeout_ms: 4000\n")
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "SessionStart"}
    first = loaded(vybe, ["hook", "run", "claude"], {**payload, "source": "startup"})
    again = loaded(vybe, ["hook", "run", "claude"], {**payload, "source": "startup"})
    assert "yaml" in first
    assert heavy_in(again, HEAVY | HOOK_ONLY) == set()
    assert vybe.ok("status")["agent"] == "editor"
