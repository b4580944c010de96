"""The Claude Code plugin: installed by the real `claude plugin marketplace add` (this clone's
path) and `claude plugin install`, into a fresh HOME, then a scripted session against the fake
Anthropic server. With `vybe` on PATH the plugin is the whole setup (hooks, brief, MCP
tools); without it the first SessionStart says how to install vybe and nothing fails."""

from __future__ import annotations

import json
import time

from checks import Checks
from clients import Claude
from proxied import server_log
from sandbox import BIN, REPO, VYBE, Sandbox

import fakes

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
    claude.turn('[[mcp: task_create {"title": "made over the plugin\'s mcp"}]]', sid)
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
    claude_plugin_uninstalled(box, claude, checks)
    return box


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
