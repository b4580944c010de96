"""Errors with stable codes: every expected failure becomes one JSON envelope."""

from __future__ import annotations

TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from typing import Any


class VybeError(Exception):
    """An expected failure that a caller can act on by its ``code``."""

    code = "INTERNAL"
    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        context: dict[str, Any] | None = None,
        suggested_action: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.context = context or {}
        self.suggested_action = suggested_action


class UsageError(VybeError):
    code = "USAGE_ERROR"
    exit_code = 2


class InvalidInput(VybeError):
    code = "INVALID_INPUT"


class NotFound(VybeError):
    code = "NOT_FOUND"


def listed(row: dict | None, entity: str, ident: str) -> dict:
    """``row``, the ``entity`` of id ``ident`` when there is one; else NOT_FOUND, with the
    command that lists the ids (`vybe <entity> list`)."""
    if row is None:
        raise NotFound(
            f"no {entity} {ident!r}",
            context={"entity": entity, "id": ident},
            suggested_action=f"run `vybe {entity} list` to see {entity} ids",
        )
    return row


class AgentRequired(VybeError):
    """A command that acts as an agent, run with no agent named: never a shared fallback
    name, under which two misconfigured agents would share one focus, claims and cursor."""

    code = "AGENT_REQUIRED"

    def __init__(self) -> None:
        super().__init__(
            "this command acts as an agent, and no agent is named",
            context={"ways": ["--agent NAME", "VYBE_AGENT=NAME", "config.yaml: default_agent"]},
            suggested_action="pass --agent NAME, set VYBE_AGENT=NAME, or write default_agent:"
            " NAME in ~/.config/vybe/config.yaml (`vybe init --agent NAME` writes it)",
        )


def acting(agent: str | None) -> str:
    """The agent a command acts as; none named is AGENT_REQUIRED, never a fallback name."""
    if agent is None:
        raise AgentRequired()
    return agent


class VersionConflict(VybeError):
    code = "VERSION_CONFLICT"


class IdempotencyMismatch(VybeError):
    code = "IDEMPOTENCY_MISMATCH"


class AlreadyClaimed(VybeError):
    code = "ALREADY_CLAIMED"


class BlockedByDependency(VybeError):
    code = "BLOCKED_BY_DEPENDENCY"


class DatabaseLocked(VybeError):
    code = "DB_LOCKED"


class DatabaseUnavailable(VybeError):
    code = "DB_UNAVAILABLE"


class DatabaseCorrupt(VybeError):
    code = "DB_CORRUPT"


class ReadOnlyViolation(VybeError):
    code = "READ_ONLY_VIOLATION"


class ModelError(VybeError):
    code = "MODEL_ERROR"


class ContextExhausted(VybeError):
    code = "CONTEXT_EXHAUSTED"


class DiskFull(VybeError):
    code = "DISK_FULL"

    def __init__(self, path: str) -> None:
        super().__init__(
            f"the disk holding {path} is full; nothing of this command was written",
            context={"path": path},
            suggested_action="free some space on that disk and retry (every earlier write is kept)",
        )


class StoreTooNew(VybeError):
    """A store a newer vybe migrated: using it as if current could corrupt what it added."""

    code = "STORE_TOO_NEW"

    def __init__(self, path: str, version: int, unknown: list[str], known: int) -> None:
        from vybe import __version__

        super().__init__(
            f"{path} was written by a newer vybe (schema version {version}"
            + (f", migrations {', '.join(unknown)}" if unknown else "")
            + f"); vybe {__version__} knows schema version {known}",
            context={
                "path": path,
                "schema_version": version,
                "unknown_migrations": unknown,
                "this_vybe_knows": known,
                "vybe_version": __version__,
            },
            suggested_action="upgrade vybe, or pass --db-path to another store",
        )


class MissingDependency(VybeError):
    """An optional extra (``mcp``, ``postgres``) that this install lacks, and how to add it."""

    code = "MISSING_DEPENDENCY"

    def __init__(self, module: str, extra: str, needed_for: str) -> None:
        from vybe import DISTRIBUTION

        wanted = f"{DISTRIBUTION}[{extra}]"
        super().__init__(
            f"{needed_for} needs the {module} package, which this vybe lacks",
            context={"module": module, "extra": extra},
            suggested_action=f"pipx install --force '{wanted}' (or uv tool install --force "
            f"'{wanted}', or pip install '{wanted}' in vybe's environment)",
        )


def require_extra(module: str, extra: str, needed_for: str) -> None:
    """MissingDependency unless ``module`` can be imported (looked for, not imported)."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingDependency(module, extra, needed_for)
