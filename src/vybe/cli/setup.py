"""setup: wire vybe into the agents found on this machine (Claude Code, Codex, Gemini CLI) in one
command, show it as a diff first (--dry-run), or take it all back (--undo)."""

from __future__ import annotations

from pathlib import Path

from vybe.operations.model import CLI_ONLY, Operation, Param

GROUPS: dict[str, str] = {}


def setup(inv, v: dict) -> dict:
    from vybe.errors import NotFound, UsageError
    from vybe.integrations.setup import steps as wiring

    if v["undo"]:
        if v["dry_run"] or any(v[a] for a in wiring.AGENTS) or v["statusline"]:
            raise UsageError("--undo takes back everything setup wrote: it takes no other flag")
        return {"undone": wiring.undo()}
    agents = [a for a in wiring.AGENTS if v[a]] or (
        ["claude"] if v["statusline"] else wiring.found()
    )
    if not agents:
        raise NotFound(
            "found none of Claude Code, Codex and Gemini CLI (no `claude`, `codex` or `gemini`"
            " on PATH, no ~/.claude, ~/.codex or ~/.gemini)",
            suggested_action="install one, or name it: vybe setup --claude / --codex / --gemini",
        )
    changes, manual = wiring.plan(agents, inv.settings, Path.cwd(), v["statusline"])
    plugins = wiring.claude_plugins() if "claude" in agents else []
    codex_plugins = wiring.codex_plugins() if "codex" in agents else []
    registry = agent_written = None
    if not v["dry_run"]:
        from vybe import config
        from vybe.integrations.setup import manifest

        inv.store.migrate()  # the store made now, not at the agent's first hook
        wiring.apply(changes)
        registry = {"path": str(manifest.path()), "written": manifest.ensure()}
        if "agent" in inv.flags:  # who `vybe` typed in a terminal acts as
            agent_written = config.write_default_agent(inv.flags["agent"])
    if "codex" in agents and (wiring.trust_pending() or v["dry_run"]):
        manual.append(f"Codex: {wiring.TRUST_STEP}")
    return {
        "dry_run": v["dry_run"],
        "agents": agents,
        "store": inv.settings.location if inv.settings.db_url is None else "server",
        "changes": [
            {
                "path": str(c.path),
                "changed": c.changed,
                "what": c.what,
                **({"diff": c.diff()} if v["dry_run"] and c.changed else {}),
            }
            for c in changes
        ],
        "claude_plugin": {"installed": plugins, "note": wiring.PLUGIN_LEFT} if plugins else None,
        "codex_plugin": (
            {"installed": codex_plugins, "note": wiring.CODEX_PLUGIN_LEFT}
            if codex_plugins
            else None
        ),
        "you_do": manual,
        "hook_registry": registry,
        "default_agent_written": agent_written,
        "undo": "vybe setup --undo",
    }


OPERATIONS = (
    Operation(
        "setup",
        "Wire vybe into Claude Code, Codex and Gemini CLI (those found, or those named): hooks,"
        " status line, MCP server, Codex's config; --dry-run shows the diff, --undo takes it back;"
        " with --agent NAME, NAME becomes config.yaml's default_agent. Where the vybe plugin"
        " is installed in Claude Code, its settings are left alone (--statusline: the status"
        " line only); in Codex, only the store's writable root is added.",
        setup,
        params=(
            Param("claude", "boolean", "Claude Code (default: every agent found)"),
            Param("codex", "boolean", "OpenAI Codex CLI (default: every agent found)"),
            Param("gemini", "boolean", "Google Gemini CLI (default: every agent found)"),
            Param("dry_run", "boolean", "show each file's diff, write nothing"),
            Param("undo", "boolean", "put back every file setup wrote, as it was before"),
            Param(
                "statusline",
                "boolean",
                "only Claude Code's status line (which its plugin cannot set)",
            ),
        ),
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"agents": "array", "changes": "array", "you_do": "array"},
        examples=(
            "vybe setup --dry-run",
            "vybe setup",
            "vybe setup --agent alice",
            "vybe setup --statusline",
            "vybe setup --undo",
        ),
    ),
)
ALIASES = ()
