"""The plugin: installed by the real `claude plugin marketplace add` (this clone's path) and
`claude plugin install`, or by Codex's own `codex plugin marketplace add` and `codex plugin
add`, into a fresh HOME, then a scripted session against the fake Anthropic or Responses
server. With `vybe` on PATH the plugin is the whole setup (hooks, brief, MCP tools; for
Codex, its trust besides); without it the first SessionStart says how to install vybe and
nothing fails."""

from __future__ import annotations

import json
import time

from checks import Checks
from clients import Claude, Codex
from proxied import server_log
from sandbox import BIN, REPO, VYBE, Sandbox

import fakes
from fakes import FIND_WORDS, said_to

INSTALL_LINE = "vybe: the vybe command is not on PATH"


def installed(box: Sandbox, checks: Checks) -> None:
    """The plugin added and installed as its docs say, each command exiting 0."""
    for argv in (["marketplace", "add", str(REPO)], ["install", "vybe@vybe"]):
        done = box.run([str(BIN / "claude"), "plugin", *argv])
        checks.that(
            f"{box.name}: claude plugin {' '.join(argv)}", done.returncode == 0, done.stderr
        )


def with_vybe_on_path(box: Sandbox) -> None:
    """`vybe` on PATH as pipx / uv tool put it: a folder holding only the command."""
    folder = box.root / "bin"
    folder.mkdir()
    (folder / "vybe").symlink_to(VYBE)
    box.env["PATH"] = f"{folder}:{box.env['PATH']}"


def claude_plugin(checks: Checks) -> Sandbox:
    box = Sandbox("claude-plugin", fakes.Anthropic(server_log("claude-plugin")).start())
    claude = Claude(box)
    with_vybe_on_path(box)
    installed(box, checks)
    first = claude.turn("fix the login through the plugin")
    sid = first.get("session_id")
    checks.that("plugin: claude -p answers through the fake server", bool(sid), first)
    texts = [json.dumps(e.get("body")) for e in box.server.log.entries if e["method"] == "POST"]
    checks.that(
        "plugin: the brief reaches the model at SessionStart through the plugin's hook",
        any("SessionStart hook additional context: == VYBE" in t for t in texts),
    )
    users = [r["content_text"] for r in box.messages(f"claude:{sid}") if r["type"] == "user"]
    checks.that(
        "plugin: the prompt is recorded once, verbatim",
        users == ["fix the login through the plugin"],
        users,
    )
    claude.turn(
        f'[[find: {FIND_WORDS} -> task_create {{"title": "made over the plugin\'s mcp"}}]]', sid
    )
    rows = box.query("SELECT project_id FROM tasks WHERE title = 'made over the plugin''s mcp'")
    checks.that(
        "plugin: a task made over the plugin's MCP server is in the project of Claude's folder",
        [r["project_id"] for r in rows] == [str(box.project)],
        [dict(r) for r in rows],
    )
    settings = json.loads((box.home / ".claude" / "settings.json").read_text())
    checks.that(
        "plugin: Claude Code's settings hold no vybe hook of setup's (the plugin brings them)",
        "hooks" not in settings and settings.get("enabledPlugins") == {"vybe@vybe": True},
        settings,
    )
    claude_plugin_and_setup(box, claude, checks)
    claude_plugin_compacted(box, claude, sid, checks)
    claude_plugin_uninstalled(box, claude, checks)
    return box


def claude_plugin_and_setup(box: Sandbox, claude: Claude, checks: Checks) -> None:
    """`vybe setup` beside the plugin: it says so and writes nothing of Claude Code's, doctor
    names the plugin, and a session's prompt is still recorded once."""
    settings = box.home / ".claude" / "settings.json"
    before = settings.read_bytes()
    done = box.vybe("setup")
    found = {c["name"]: c for c in box.vybe("doctor").get("data", {}).get("checks", [])}
    turn = claude.turn("with the plugin and vybe setup both run")
    users = [
        r["content_text"]
        for r in box.messages(f"claude:{turn.get('session_id')}")
        if r["type"] == "user"
    ]
    checks.that(
        "plugin: vybe setup beside the plugin leaves Claude Code's settings byte for byte,"
        " doctor names the plugin, and the next prompt is recorded once",
        done.get("success") is True
        and settings.read_bytes() == before
        and found.get("claude_registration", {}).get("active") == "plugin"
        and users == ["with the plugin and vybe setup both run"],
        (done.get("data"), found.get("claude_registration"), users),
    )


def claude_plugin_compacted(box: Sandbox, claude: Claude, sid: str, checks: Checks) -> None:
    """/compact under the plugin: the model's first request after it holds the person's
    first prompt byte for byte, given back by the plugin's SessionStart hook."""
    before = len(said_to(box.server))
    claude.turn("/compact", sid)
    claude.turn("what did I ask first?", sid)
    after = said_to(box.server)[before:]
    given = [text for text in after if "The user's words (verbatim" in text]
    checks.that(
        "plugin: after /compact the user's first prompt is given back verbatim",
        bool(given) and "fix the login through the plugin" in given[0],
        after[-1:],
    )


def claude_plugin_uninstalled(box: Sandbox, claude: Claude, checks: Checks) -> None:
    """`claude plugin uninstall`: the next session runs no vybe hook."""
    box.run([str(BIN / "claude"), "plugin", "uninstall", "vybe@vybe"])
    before = len(box.payloads())
    claude.turn("after the uninstall")
    checks.that(
        "plugin: after claude plugin uninstall no vybe hook fires",
        len(box.payloads()) == before,
        box.payloads()[before:],
    )


def claude_plugin_without_vybe(checks: Checks) -> Sandbox:
    box = Sandbox(
        "claude-plugin-no-vybe", fakes.Anthropic(server_log("claude-plugin-no-vybe")).start()
    )
    claude = Claude(box)
    installed(box, checks)
    started = time.monotonic()
    first = claude.turn("hello without vybe")
    took = time.monotonic() - started
    checks.that("plugin without vybe: the session answers", bool(first.get("session_id")), first)
    texts = [json.dumps(e.get("body")) for e in box.server.log.entries if e["method"] == "POST"]
    told = [t for t in texts if INSTALL_LINE in t]
    checks.that(
        "plugin without vybe: the first SessionStart says in one line how to install vybe",
        bool(told) and not any("== VYBE" in t for t in texts),
        texts[:1],
    )
    checks.that(
        f"plugin without vybe: no hook fails the session ({took:.1f} s)",
        first.get("is_error") is False and not box.db.exists(),
        first,
    )
    return box


def codex_installed(box: Sandbox, checks: Checks) -> None:
    """The Codex twin added and installed with Codex's own plugin commands, each exiting 0."""
    for argv in (["marketplace", "add", str(REPO)], ["add", "vybe@vybe"]):
        done = box.run([str(BIN / "codex"), "plugin", *argv])
        checks.that(f"{box.name}: codex plugin {' '.join(argv)}", done.returncode == 0, done.stderr)


def codex_plugin(checks: Checks) -> Sandbox:
    """#39: the Codex twin is the whole setup but the trust (and the store's writable root,
    which `vybe setup --codex` adds beside the plugin without registering vybe again)."""
    box = Sandbox("codex-plugin", fakes.OpenAI(server_log("codex-plugin")).start())
    codex = Codex(box)
    codex.with_plugins()
    with_vybe_on_path(box)
    codex_installed(box, checks)
    done = box.vybe("setup", "--codex")
    data = done.get("data", {})
    checks.that(
        "codex plugin: vybe setup --codex sees the plugin, writes no hooks.json and no MCP"
        " server, and ends with the trust step",
        data.get("codex_plugin", {}).get("installed") == ["vybe@vybe"]
        and not (codex.home / "hooks.json").exists()
        and "[mcp_servers.vybe]" not in (codex.home / "config.toml").read_text()
        and any("Trust all" in step for step in data.get("you_do", [])),
        done,
    )
    codex.trust_hooks_in_the_tui()
    found = {c["name"]: c for c in box.vybe("doctor").get("data", {}).get("checks", [])}
    checks.that(
        "codex plugin: doctor says the plugin registers vybe, and sees the TUI's trust of its"
        " hooks",
        found.get("codex_registration", {}).get("active") == "plugin"
        and found.get("codex_setup", {}).get("ok") is True,
        (found.get("codex_registration"), found.get("codex_setup")),
    )
    codex_plugin_session(box, codex, checks)
    return box


def codex_plugin_session(box: Sandbox, codex: Codex, checks: Checks) -> None:
    box.vybe("project", "create", "--id", str(box.project), "--name", "project")
    box.vybe("task", "create", "--title", "Fix the login", "--project-id", str(box.project))
    first = codex.turn("fix the login through the codex plugin [[brief: LOG]]", None, False)
    thread = first["thread_id"]
    checks.that("codex plugin: codex exec answers", first["exit"] == 0 and bool(thread), first)
    bodies = [e.get("body") or {} for e in box.server.log.entries if e["method"] == "POST"]
    checks.that(
        "codex plugin: the brief reaches the model at SessionStart through the plugin's hook",
        any("== VYBE" in json.dumps(b) for b in bodies[:1]),
    )
    offered = {t.get("name") for b in bodies[:1] for t in b.get("tools") or []}
    checks.that(
        "codex plugin: the first request offers vybe's MCP tools (the plugin's server)",
        "mcp__vybe" in offered,
        sorted(str(n) for n in offered),
    )
    users = [r["content_text"] for r in box.messages(f"codex:{thread}") if r["type"] == "user"]
    checks.that(
        "codex plugin: the prompt is recorded once, verbatim (vybe registered once)",
        users == ["fix the login through the codex plugin [[brief: LOG]]"],
        users,
    )
    checks.that(
        "codex plugin: the brief's LOG line writes the store from Codex's sandbox (the"
        " writable root setup added beside the plugin)",
        bool(box.query("SELECT 1 FROM events WHERE kind = 'progress'")),
    )
    codex.turn('[[mcp: task_create {"title": "made over the codex plugin"}]]', thread, False)
    rows = box.query("SELECT project_id FROM tasks WHERE title = 'made over the codex plugin'")
    checks.that(
        "codex plugin: a task made over the plugin's MCP server is in the hooks' store, in the"
        " project of Codex's folder",
        [r["project_id"] for r in rows] == [str(box.project)],
        [dict(r) for r in rows],
    )
    box.run([str(BIN / "codex"), "plugin", "remove", "vybe@vybe"])
    before = len(box.payloads())
    after = codex.turn("after the removal")
    checks.that(
        "codex plugin: after codex plugin remove no vybe hook fires and Codex still answers",
        len(box.payloads()) == before and after["exit"] == 0,
        box.payloads()[before:],
    )


def codex_plugin_without_vybe(checks: Checks) -> Sandbox:
    box = Sandbox("codex-plugin-no-vybe", fakes.OpenAI(server_log("codex-plugin-no-vybe")).start())
    codex = Codex(box)
    codex.with_plugins()
    codex_installed(box, checks)
    started = time.monotonic()
    first = codex.turn("hello without vybe")  # hooks trusted for this run (its flag)
    took = time.monotonic() - started
    texts = [json.dumps(e.get("body")) for e in box.server.log.entries if e["method"] == "POST"]
    checks.that(
        f"codex plugin without vybe: the session answers though its MCP server is required"
        f" ({took:.1f} s)",
        first["exit"] == 0 and bool(texts) and not box.db.exists(),
        first,
    )
    checks.that(
        "codex plugin without vybe: the first SessionStart says in one line how to install vybe",
        any(INSTALL_LINE in t for t in texts[:1]) and not any("== VYBE" in t for t in texts),
        texts[:1],
    )
    return box
