"""hook install, uninstall, export, run and statusline: wiring vybe into Claude Code, Codex and
Gemini CLI.

``hook run`` and ``statusline`` are declared here like every command (their help, ``vybe
schema``, docs/cli.md), but the executable serves the lines agents run without this module
(vybe.cli.entry: no argparse on the hook path); what reaches them here is a line it left to
the parser, such as ``vybe hook run --target codex``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vybe import config
from vybe.cli.hook_run import TARGETS
from vybe.operations.model import CLI_ONLY, Operation, Param

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import NoReturn

GROUPS = {"hook": "Install vybe's hooks into Claude Code, Codex and Gemini CLI, and run them."}
TARGET_PARAMS = (
    Param("claude", "boolean", "Claude Code's settings (the default)"),
    Param("codex", "boolean", "OpenAI Codex CLI's settings"),
    Param("gemini", "boolean", "Google Gemini CLI's settings"),
    Param("project", "boolean", "this folder's settings instead of the user's"),
    Param("dry_run", "boolean", "report what would change, write nothing"),
)


def _targets(v: dict) -> list[str]:
    chosen = [t for t in TARGETS if v[t]]
    return chosen or ["claude"]


def _project(v: dict) -> Path | None:
    from pathlib import Path

    return Path.cwd() if v["project"] else None


def install(inv, v: dict) -> dict:
    from pathlib import Path

    from vybe.integrations.setup import install as installer

    outcomes = {
        t: installer.install(t, _project(v), dry_run=v["dry_run"]).as_dict() for t in _targets(v)
    }
    if "codex" in outcomes and not v["dry_run"]:
        # What only the person can set in Codex (trust, sandbox, MCP entry): said, not done.
        check = installer.codex_setup(Path.cwd(), inv.settings.db_path)
        outcomes["codex"]["still_needed"] = check["detail"]["problems"]
    return {"dry_run": v["dry_run"], "command": config.vybe_argv(), **outcomes}


def uninstall(inv, v: dict) -> dict:
    from vybe.integrations.setup import install as installer

    outcomes = {
        t: installer.uninstall(t, _project(v), dry_run=v["dry_run"]).as_dict() for t in _targets(v)
    }
    return {"dry_run": v["dry_run"], **outcomes}


def export(inv, v: dict) -> dict:
    """Write the registry to the config dir (unless it is there) so people can edit it."""
    from vybe.integrations.setup import install as installer
    from vybe.integrations.setup import manifest

    created = manifest.ensure()
    specs, _ = manifest.load()
    return {
        "path": str(manifest.path()),
        "created": created,
        "manifest": manifest.to_json(specs),
        "commands": {t: installer.handler_command(t) for t in TARGETS},
    }


def _served(inv, handler: Callable[[], int]) -> NoReturn:
    """Run a hook-path handler with this line's global flags as the hook path reads them."""
    from vybe.cli.flags import as_hooks_read

    as_hooks_read(inv.flags)
    handler()
    # stdout carried the agent's answer (or nothing): no envelope may follow it.
    raise SystemExit(0)


def run(inv, v: dict) -> NoReturn:
    from vybe.cli.hook_run import run_handler

    _served(inv, lambda: run_handler([v["target"]]))


def statusline(inv, v: dict) -> NoReturn:
    from vybe.integrations.hooks import statusline as line

    _served(inv, line.run)


OPERATIONS = (
    Operation(
        "hook install",
        "Merge vybe's hooks into the agents' settings (idempotent).",
        install,
        params=TARGET_PARAMS,
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"dry_run": "boolean", "claude": "object", "codex": "object", "gemini": "object"},
        examples=("vybe hook install", "vybe hook install --codex --project --dry-run"),
    ),
    Operation(
        "hook uninstall",
        "Remove only vybe's hooks from the agents' settings.",
        uninstall,
        params=TARGET_PARAMS,
        writes=True,
        idempotent=True,
        destructive=True,
        surfaces=CLI_ONLY,
        result={"dry_run": "boolean", "claude": "object", "codex": "object", "gemini": "object"},
        examples=("vybe hook uninstall --claude",),
    ),
    Operation(
        "hook export",
        "Print the hook registry (the config folder's hooks.json: events, matchers, timeouts),"
        " writing the defaults there first when it is absent.",
        export,
        surfaces=CLI_ONLY,
        result={"path": "string", "created": "boolean", "manifest": "object"},
        examples=("vybe hook export",),
    ),
    Operation(
        "hook run",
        "Record and answer one Claude Code, Codex or Gemini CLI hook event (JSON on stdin) in"
        " the agent's "
        "hook protocol, never an envelope; exit 0 whatever the event holds.",
        run,
        params=(
            Param(
                "target",
                help="whose hook protocol the event and the answer follow; the agent acting "
                "is --agent, else VYBE_AGENT, else the target",
                enum=TARGETS,
                default="claude",
                positional=True,
            ),
        ),
        surfaces=CLI_ONLY,
        examples=(
            """echo '{"hook_event_name": "SessionStart", "source": "startup"}' """
            "| vybe hook run claude",
            """echo '{"hook_event_name": "UserPromptSubmit", "prompt": "hi"}' """
            "| vybe --agent reviewer hook run codex",
        ),
    ),
    Operation(
        "statusline",
        "Print Claude Code's status line for the session JSON on stdin: the focus task, "
        "compactions, words kept (`vybe` alone without a store); exit 0 whatever the payload.",
        statusline,
        surfaces=CLI_ONLY,
        examples=("""echo '{"session_id": "s1", "cwd": "/tmp"}' | vybe statusline""",),
    ),
)
ALIASES = ()
