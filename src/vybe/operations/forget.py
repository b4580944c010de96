"""forget: take back what the store holds of a session, a string, or a time."""

from __future__ import annotations

from vybe import limits
from vybe.operations.common import PROJECT_ID
from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS: dict[str, str] = {}


def _forget(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.actions import forget as actions

    selection = actions.Selection(v["session"], v["text"], v["before"], v["project_id"])
    return actions.forget(ctx.store, selection, v["dry_run"])


OPERATIONS = (
    Operation(
        "forget",
        "Take back what the store holds of one session, one string or everything before a"
        " date, from every table and search index (the rows' words become a marker), and say"
        " how many rows of each table; on SQLite the bytes leave the files too.",
        _forget,
        params=(
            Param(
                "session",
                help="a record session's id (claude:UUID, codex:UUID, …)",
                max_length=limits.PATH_MAX,
            ),
            Param(
                "text",
                help="a string of at least 8 characters, replaced wherever it is",
                max_length=limits.MESSAGE_MAX,
            ),
            Param("before", help="a date (2026-01-31) or UTC time: what was written before it"),
            PROJECT_ID.but(
                help="only what belongs to this project (its id, or the folder's"
                " path the hooks record)"
            ),
            Param("dry_run", "boolean", "say what would be forgotten, change nothing"),
        ),
        writes=True,
        peek="dry_run",
        destructive=True,
        idempotent=True,
        surfaces=CLI_ONLY,
        result={"dry_run": "boolean", "forgotten": "object", "total": "integer"},
        examples=(
            "vybe forget --session claude:UUID --dry-run",
            "vybe forget --text 'my-secret-token'",
            "vybe forget --before 2026-01-01 --project-id /home/me/app",
        ),
    ),
)
ALIASES = ()
