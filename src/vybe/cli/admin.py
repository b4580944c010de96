"""init, status, schema, doctor, upgrade, data query: the store's own housekeeping."""

from __future__ import annotations

import os
import sqlite3

from vybe import __version__, config
from vybe.cli.commands import cli_params, every
from vybe.cli.flags import GLOBAL_FLAGS
from vybe.errors import VybeError
from vybe.operations import Catalog, Command
from vybe.operations.common import FORMAT, LIMIT
from vybe.operations.model import CLI_ONLY, MCP, Alias, Operation, Param
from vybe.text import to_os

GROUPS = {"data": "Read the database directly."}

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


def _where(settings: config.Settings) -> str:
    """The store's location fit to print: the file, or the server's URL without a password."""
    from vybe.config import redact

    return settings.db_path if settings.db_url is None else redact(settings.db_url)


def init(inv, v: dict) -> dict:
    folder = config.config_dir()
    config.make_private_dir(folder)
    on_file = inv.settings.db_url is None
    existed = os.path.exists(to_os(inv.settings.db_path)) if on_file else None
    applied = _migrate(inv)["applied"]
    written = config.write_default_agent(inv.flags["agent"]) if "agent" in inv.flags else None
    from vybe.integrations.setup import manifest

    registry = manifest.ensure()
    return {
        "config_dir": folder,
        "hook_registry": str(manifest.path()),
        "hook_registry_written": registry,
        "db_path": _where(inv.settings),
        "database_created": not existed if on_file else "0001_foundation.sql" in applied,
        "migrations_applied": applied,
        "agent": inv.settings.agent,
        "default_agent_written": written,
    }


def status(inv, v: dict) -> dict:
    from vybe.actions import health

    path = _where(inv.settings)
    agent = inv.settings.agent
    try:
        state = health.agent_state(inv.store, agent) if agent is not None else None
        query_ok, query_error, error_code = True, None, None
    except (sqlite3.Error, VybeError) as exc:
        state, query_ok, query_error = None, False, str(exc)
        error_code = exc.code if isinstance(exc, VybeError) else "INTERNAL"
    if v["check"] and not query_ok:
        raise VybeError(
            f"status check failed: {query_error}",
            code="STATUS_CHECK_FAILED",
            context={"db_path": path, "cause": error_code},
        )
    return {
        "version": __version__,
        "agent": agent,
        "db": {
            "path": path,
            "exists": os.path.isfile(to_os(path)) if inv.settings.db_url is None else query_ok,
            "ok": query_ok,
            "error": query_error,
            "error_code": error_code,
        },
        "agent_state": state,
        "query_ok": query_ok,
        "query_error": query_error,
    }


def schema(inv, v: dict) -> dict:
    return describe()


def _param(param: Param, positional: bool) -> dict:
    return {
        "name": param.name,
        "flags": [param.flag, *param.aliases],
        "positional": positional or param.positional,
        "required": param.required,
        "type": param.type,
        "choices": list(param.enum) if param.enum else None,
        "default": param.default,
        "minimum": param.minimum,
        "maximum": param.maximum,
        "help": param.help,
    }


def _command(catalog: Catalog, command: Command) -> dict:
    op = catalog.target(command)
    params = cli_params(catalog, command)
    positionals = command.positionals if isinstance(command, Alias) else ()
    return {
        "command": command.name,
        "description": command.summary,
        "alias_of": op.name if isinstance(command, Alias) else None,
        "args_schema": [_param(p, p.name in positionals) for p in params],
        "mutates": op.writes,
        "read_only_with": op.peek,
        "requires_request_id": False,
        "accepts_request_id": op.writes,
        "mcp_tool": op.tool if MCP in op.surfaces else None,
        "examples": list(op.examples),
    }


def describe() -> dict:
    """`vybe schema`: every command, its parameters, the envelope and the agent protocol."""
    catalog = every()
    commands: dict[str, Command] = {**catalog.operations, **catalog.aliases}
    return {
        "version": __version__,
        "global_flags": list(GLOBAL_FLAGS),
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
            "exit_codes": {
                "0": "success",
                "1": "error",
                "2": "usage error",
                "130": "interrupted",
            },
        },
        "commands": [_command(catalog, commands[name]) for name in sorted(commands)],
        "agent_protocol": AGENT_PROTOCOL,
    }


def doctor(inv, v: dict) -> dict:
    from vybe.actions import health

    settings = inv.settings
    checks = health.store_checks(settings.location, settings.busy_timeout_ms)
    checks.extend(_hook_checks(settings.db_path))
    if settings.db_url is not None:
        checks.append(_service_check())
    checks.extend(_proxy_checks())
    return {
        "ok": all(c["ok"] for c in checks),
        "checks": checks,
        "config": {
            "file": settings.config_file,
            "read": [settings.config_file] if settings.config_file else [],
            "searched": config.config_files(),
            "db_path": _where(settings),
            "agent": settings.agent,
            "claim_lease": settings.claim_lease,
        },
    }


def _hook_checks(db_path: str) -> list[dict]:
    """Which vybe hooks the agents' settings hold: missing events, stale paths, duplicates;
    what Codex needs besides (trust, its sandbox's writable roots, the MCP entry); whether
    each agent's plugin, setup, or both register vybe."""
    from pathlib import Path

    from vybe.integrations.setup import install, steps

    checks = install.health(Path.cwd(), db_path)
    return [*checks, steps.claude_registration(), steps.codex_registration()]


def _service_check() -> dict:
    """The local service that runs a server store's hooks (vybe.cli.service): its state is
    said, never a failure, but for a socket folder others may enter."""
    from vybe.integrations.hooks import service_link

    found = service_link.state()
    return {"name": "local_service", "ok": found["state"] != "unavailable", **found}


def _proxy_checks() -> list[dict]:
    """Whether the base URLs Claude Code, Codex and Gemini CLI use point at a vybe proxy that
    answers."""
    import os

    from vybe.integrations.setup import codex_config
    from vybe.proxy import doctor

    return doctor.checks(dict(os.environ), codex_config.read(codex_config.config_path()))


def _migrate(inv) -> dict:
    from vybe.actions import health

    return health.migrate(inv.settings.location, inv.settings.busy_timeout_ms)


def upgrade(inv, v: dict) -> dict:
    return _migrate(inv)


def query(inv, v: dict) -> dict:
    from vybe.actions import data

    inv.store  # noqa: B018 - opening the store applies pending migrations first
    settings = inv.settings
    return data.query(
        settings.location, v["sql"], v["limit"], busy_timeout_ms=settings.busy_timeout_ms
    )


OPERATIONS = (
    Operation(
        "init",
        "Create the config folder, the database and the hook registry (hooks.json) where"
        " absent (idempotent); with --agent, write it as config.yaml's default_agent.",
        init,
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"db_path": "string", "database_created": "boolean"},
        examples=(
            "vybe init --agent claude",
            "vybe init --db-path /tmp/vybe.db",
        ),
    ),
    Operation(
        "status",
        "The database's path and health, and this agent's state.",
        status,
        params=(Param("check", "boolean", "fail (STATUS_CHECK_FAILED) unless the store answers"),),
        surfaces=CLI_ONLY,
        result={"version": "string", "agent": "string", "db": "object"},
        examples=("vybe status", "vybe status --check"),
    ),
    Operation(
        "schema",
        "Every command, its parameters and the agent protocol, as JSON.",
        schema,
        surfaces=CLI_ONLY,
        result={"commands": "array", "agent_protocol": "object"},
        examples=("vybe schema",),
    ),
    Operation(
        "doctor",
        "Integrity, journal mode, migrations, config, installed hooks and model proxies.",
        doctor,
        surfaces=CLI_ONLY,
        result={"ok": "boolean", "checks": "array", "config": "object"},
        examples=("vybe doctor",),
    ),
    Operation(
        "upgrade",
        "Apply pending database migrations (every command also does).",
        upgrade,
        writes=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"applied": "array"},
        examples=("vybe upgrade",),
    ),
    Operation(
        "data query",
        "Run one read-only SQL statement over the store; writes are refused.",
        query,
        params=(
            Param("sql", help="one SQL statement, e.g. a SELECT over messages", required=True),
            LIMIT,
            FORMAT,
        ),
        surfaces=CLI_ONLY,
        result={"rows": "array", "count": "integer", "truncated": "boolean"},
        listing="rows",
        text="vybe.actions.data:as_text",
        examples=(
            "vybe data query --sql 'SELECT type, COUNT(*) FROM messages GROUP BY type'",
            'vybe data query --sql "SELECT context_seq, substr(content_text, 1, 300) FROM'
            " messages WHERE type = 'user' ORDER BY context_seq LIMIT 50\" --format text",
        ),
    ),
)
ALIASES = ()
