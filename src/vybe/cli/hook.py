"""hook install, uninstall, export: wiring vybe into Claude Code and Codex."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vybe import config
from vybe.cli.hook_run import TARGETS
from vybe.cli.registry import Registry

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse


def _targets(args: argparse.Namespace) -> list[str]:
    chosen = [t for t in TARGETS if getattr(args, t)]
    return chosen or ["claude"]


def _project(args: argparse.Namespace) -> Path | None:
    return Path.cwd() if args.project else None


def install(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.integrations import install as installer

    outcomes = {
        t: installer.install(t, _project(args), dry_run=args.dry_run).as_dict()
        for t in _targets(args)
    }
    return {"dry_run": args.dry_run, "command": installer.vybe_argv(), **outcomes}


def uninstall(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.integrations import install as installer

    outcomes = {
        t: installer.uninstall(t, _project(args), dry_run=args.dry_run).as_dict()
        for t in _targets(args)
    }
    return {"dry_run": args.dry_run, **outcomes}


def export(inv: Any, args: argparse.Namespace) -> dict:
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


def _target_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claude", action="store_true", help="Claude Code (the default)")
    parser.add_argument("--codex", action="store_true", help="OpenAI Codex CLI")
    parser.add_argument("--project", action="store_true", help="this folder's settings")
    parser.add_argument("--dry-run", action="store_true", help="report, write nothing")


def register(registry: Registry) -> None:
    registry.group("hook", "Install vybe's hooks into Claude Code and Codex.")
    _target_flags(
        registry.command(
            "hook install",
            install,
            "Merge vybe's hooks into the agents' settings (idempotent).",
            mutates=True,
        )
    )
    _target_flags(
        registry.command(
            "hook uninstall", uninstall, "Remove only vybe's hooks from the settings.", mutates=True
        )
    )
    registry.command(
        "hook export", export, "The hook manifest (events, matchers, timeouts), kept editable."
    )
