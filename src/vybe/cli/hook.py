"""hook install, uninstall, export: wiring vybe into Claude Code and Codex."""

from __future__ import annotations

import json

from vybe import config
from vybe.cli.hook_run import TARGETS
from vybe.operations.model import CLI_ONLY, Operation, Param

# pathlib stays out (~3 ms): `vybe schema` loads this module for its declarations.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

GROUPS = {"hook": "Install vybe's hooks into Claude Code and Codex."}
TARGET_PARAMS = (
    Param("claude", "boolean", "Claude Code's settings (the default)"),
    Param("codex", "boolean", "OpenAI Codex CLI's settings"),
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

    from vybe.integrations import install as installer

    outcomes = {
        t: installer.install(t, _project(v), dry_run=v["dry_run"]).as_dict() for t in _targets(v)
    }
    if "codex" in outcomes and not v["dry_run"]:
        # What only the person can set in Codex (trust, sandbox, MCP entry): said, not done.
        check = installer.codex_setup(Path.cwd(), inv.settings.db_path)
        outcomes["codex"]["still_needed"] = check["detail"]["problems"]
    return {"dry_run": v["dry_run"], "command": config.vybe_argv(), **outcomes}


def uninstall(inv, v: dict) -> dict:
    from vybe.integrations import install as installer

    outcomes = {
        t: installer.uninstall(t, _project(v), dry_run=v["dry_run"]).as_dict() for t in _targets(v)
    }
    return {"dry_run": v["dry_run"], **outcomes}


def export(inv, v: dict) -> dict:
    """Write the manifest to the config dir (unless it is there) so people can edit it."""
    from vybe.integrations import install as installer
    from vybe.integrations import manifest

    specs, found = manifest.load()
    document = manifest.to_json(specs)
    where = manifest.path()
    if found is None:
        config.make_private_dir(str(where.parent))
        with open(where, "w", encoding="utf-8", opener=config.private_opener) as file:
            file.write(json.dumps(document, indent=2) + "\n")
    return {
        "path": str(where),
        "created": found is None,
        "manifest": document,
        "commands": {t: installer.handler_command(t) for t in TARGETS},
    }


OPERATIONS = (
    Operation(
        "hook install",
        "Merge vybe's hooks into the agents' settings (idempotent).",
        install,
        params=TARGET_PARAMS,
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"dry_run": "boolean", "claude": "object", "codex": "object"},
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
        result={"dry_run": "boolean", "claude": "object", "codex": "object"},
        examples=("vybe hook uninstall --claude",),
    ),
    Operation(
        "hook export",
        "Write the hook manifest (events, matchers, timeouts) where it can be edited.",
        export,
        surfaces=CLI_ONLY,
        result={"path": "string", "created": "boolean", "manifest": "object"},
        examples=("vybe hook export",),
    ),
)
ALIASES = ()
