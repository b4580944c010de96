"""The record's session operations every surface offers (the CLI's others: vybe.cli.sessions)."""

from __future__ import annotations

from vybe.operations.common import FORMAT, LIMIT, SESSION_ID
from vybe.operations.model import NOT_AGENT, Operation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS = {"session": "The record of agent sessions: inspect, feed, import, receipts."}


def _receipts(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.actions.receipts import session_receipts

    return session_receipts(ctx.store, v["session_id"], v["limit"])


OPERATIONS = (
    Operation(
        "session receipts",
        "A receipt for every compaction of a session (vybe's checkpoints, Claude Code's and"
        " Codex's): trigger, tokens, failed checks, fallbacks, and which of the person's"
        " messages were given back verbatim, kept, cut or left in the record.",
        _receipts,
        params=(SESSION_ID, LIMIT.but(help="at most this many receipts, the newest"), FORMAT),
        surfaces=NOT_AGENT,
        result={
            "session_id": "string",
            "count": "integer",
            "compactions": "integer",
            "receipts": "array",
        },
        listing="receipts",
        text="vybe.actions.receipts:as_text",
        examples=(
            "vybe session receipts claude:UUID",
            "vybe session receipts claude:UUID --format text",
        ),
    ),
)
ALIASES = ()
