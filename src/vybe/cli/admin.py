"""init, status, schema, doctor, upgrade: the store's own housekeeping."""

from __future__ import annotations

import os
import sqlite3

from vybe import __version__, config
from vybe.cli.registry import Registry
from vybe.errors import VybeError

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse
    from typing import Any

AGENT_PROTOCOL = {
    "resume_command": "vybe resume --request-id <id>",
    "focus_task_field": "data.focus_task_id",
    "terminal_status_command": "vybe done <task_id> --note <summary>",
    "terminal_statuses": ["completed", "blocked"],
    "optional_progress_command": "vybe note <task_id> <message>",
    "rule": "Resume, work on the focus task, log progress, close it with done or block; repeat.",
    "request_ids": "Every mutating command takes --request-id (or VYBE_REQUEST_ID); one is "
    "generated when absent. Reuse the same id only to retry the same operation: a replay "
    "returns the first result, a different operation under it is IDEMPOTENCY_MISMATCH.",
}


def init(inv: Any, args: argparse.Namespace) -> dict:
    folder = config.config_dir()
    config.make_private_dir(folder)
    existed = os.path.exists(inv.settings.db_path)
    applied = _migrate(inv)["applied"]
    return {
        "config_dir": folder,
        "db_path": inv.settings.db_path,
        "database_created": not existed,
        "migrations_applied": applied,
        "agent": inv.agent,
    }


def status(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.actions import health

    path = inv.settings.db_path
    try:
        state = health.agent_state(inv.store, inv.agent)
        query_ok, query_error, error_code = True, None, None
    except (sqlite3.Error, VybeError) as exc:
        state, query_ok, query_error = None, False, str(exc)
        error_code = exc.code if isinstance(exc, VybeError) else "INTERNAL"
    if args.check and not query_ok:
        raise VybeError(
            f"status check failed: {query_error}",
            code="STATUS_CHECK_FAILED",
            context={"db_path": path, "cause": error_code},
        )
    return {
        "version": __version__,
        "agent": inv.agent,
        "db": {
            "path": path,
            "exists": os.path.isfile(path),
            "ok": query_ok,
            "error": query_error,
            "error_code": error_code,
        },
        "agent_state": state,
        "query_ok": query_ok,
        "query_error": query_error,
    }


def _describe(parser: argparse.ArgumentParser) -> list[dict[str, Any]]:
    import argparse  # only the schema needs the parsers themselves

    described = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        positional = not action.option_strings
        described.append(
            {
                "name": action.dest,
                "flags": action.option_strings,
                "positional": positional,
                "required": positional or bool(action.required),
                "type": "boolean"
                if action.nargs == 0
                else getattr(action.type, "__name__", "string"),
                "choices": list(action.choices) if action.choices else None,
                "default": action.default if action.default is not argparse.SUPPRESS else None,
                "help": action.help or "",
            }
        )
    return described


def schema(inv: Any, args: argparse.Namespace) -> dict:
    registry = Registry()
    registry.load_all()
    registry.argparser()
    commands = [
        {
            "command": name,
            "description": command.help,
            "args_schema": _describe(command.parser),
            "mutates": command.mutates,
            "requires_request_id": False,
            "accepts_request_id": command.mutates,
        }
        for name, command in sorted(registry.commands.items())
    ]
    return {
        "version": __version__,
        "global_flags": [
            {"flags": ["--agent", "-a"], "env": "VYBE_AGENT", "help": "who is acting"},
            {"flags": ["--db-path"], "env": "VYBE_DB_PATH", "help": "the SQLite store"},
            {"flags": ["--request-id"], "env": "VYBE_REQUEST_ID", "help": "idempotency key"},
        ],
        "envelope": {
            "success": {"schema_version": "v1", "success": True, "data": "..."},
            "error": [
                "schema_version",
                "success",
                "error",
                "error_code",
                "error_context",
                "suggested_action",
            ],
            "exit_codes": {"0": "success", "1": "error", "2": "usage error"},
        },
        "commands": commands,
        "agent_protocol": AGENT_PROTOCOL,
    }


def doctor(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.actions import health

    settings = inv.settings
    checks = health.store_checks(settings.db_path, settings.busy_timeout_ms)
    checks.extend(_hook_checks())
    return {
        "ok": all(c["ok"] for c in checks),
        "checks": checks,
        "config": {
            "file": settings.config_file,
            "read": [settings.config_file] if settings.config_file else [],
            "searched": config.config_files(),
            "db_path": settings.db_path,
            "agent": settings.agent,
            "claim_lease": settings.claim_lease,
        },
    }


def _hook_checks() -> list[dict]:
    """Which vybe hooks the agents' settings hold: missing events, stale paths, duplicates."""
    from pathlib import Path

    from vybe.integrations import install

    return install.health(Path.cwd())


def _migrate(inv: Any) -> dict:
    from vybe.actions import health

    return health.migrate(inv.settings.db_path, inv.settings.busy_timeout_ms)


def upgrade(inv: Any, args: argparse.Namespace) -> dict:
    return _migrate(inv)


def register(registry: Registry) -> None:
    registry.command(
        "init", init, "Create the config folder and the database (idempotent).", mutates=True
    )
    registry.command(
        "status", status, "Database path, health and this agent's state."
    ).add_argument("--check", action="store_true", help="fail unless the database answers")
    registry.command("schema", schema, "Every command, its arguments and the agent protocol.")
    registry.command("doctor", doctor, "Integrity, journal mode, migrations and config.")
    registry.command("upgrade", upgrade, "Apply pending database migrations.", mutates=True)
