"""Parameters several operations share, declared once so that every surface names and bounds
them alike: a task is always ``task_id``, every list takes the same ``limit``."""

from __future__ import annotations

from vybe import limits
from vybe.operations.model import Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import timedelta

    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

LIMIT_DEFAULT, LIMIT_MAX = 50, 1000

TASK_ID = Param(
    "task_id",
    help="the task's id (task_...), by position or flag",
    required=True,
    aliases=("--id",),
    positional=True,
    metavar="TASK_ID",
)
SESSION_ID = Param(
    "session_id",
    help="the session's id",
    required=True,
    positional=True,
    max_length=limits.PATH_MAX,
    metavar="SESSION_ID",
)
PROJECT_ID = Param("project_id", help="the project's id (often its folder's path)")
LIMIT = Param(
    "limit",
    "integer",
    "at most this many rows",
    default=LIMIT_DEFAULT,
    minimum=1,
    maximum=LIMIT_MAX,
)
LEASE = Param(
    "lease", "duration", "how long the claim holds, e.g. 15m, at most 24h (config claim_lease)"
)
NOTE = Param("note", help="what was done, for the log", default="", max_length=limits.MESSAGE_MAX)
FORCE = Param("force", "boolean", "go ahead despite open blockers or another agent's live claim")
METADATA = Param("metadata", help="a JSON object", max_length=limits.METADATA_MAX)
FORMAT = Param(
    "format",
    help="json: the envelope; text: the result as a person reads it",
    default="json",
    enum=("json", "text"),
    surfaces=frozenset(("cli",)),
)
PROJECT_DIR = Param("project_dir", help="the project's folder (its path is the project id)")


def lease(ctx: OperationContext, values: JSONObject) -> timedelta:
    """The lease asked for, else the configured one; longer than clock.MAX_LEASE is refused."""
    from vybe import clock
    from vybe.errors import InvalidInput

    chosen = values["lease"] or clock.parse_duration(ctx.settings.claim_lease)
    try:
        return clock.bounded_lease(chosen)
    except ValueError as exc:
        raise InvalidInput(
            f"lease: {exc}", context={"field": "lease"}, suggested_action="ask for 24h or less"
        ) from None
