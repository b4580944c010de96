"""Errors with stable codes: every expected failure becomes one JSON envelope."""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
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
