"""search: look things up in the record of sessions and in the event log."""

from __future__ import annotations

from vybe import limits
from vybe.actions import search as actions
from vybe.operations.common import LIMIT, PROJECT_ID
from vybe.operations.model import EVERYWHERE, NOT_AGENT, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS: dict[str, str] = {}
WHEN = "an ISO time (2026-12-01, 2026-12-01T09:30:00Z) or a duration ago (24h, 7d)"
# The agent of `vybe chat` searches its own session's record: the event filters and the time
# range stay off its tool, whose schema is part of every request.


def _search(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.store.search import SearchQuery

    query = SearchQuery(
        v["query"],
        session_id=v["session_id"],
        type=v["type"],
        agent=v["agent_name"],
        project_id=v["project_id"],
        since=v["since"],
        until=v["until"],
        limit=v["limit"],
        cursor=v["cursor"],
    )
    return actions.search(ctx.store, query, v["mode"])


OPERATIONS = (
    Operation(
        "search",
        "Search the record of sessions (messages, replies, tool calls and their output) and"
        " the event log: best hits first, each with a snippet.",
        _search,
        finds="find what we did before, look up earlier work or a past conversation",
        params=(
            Param(
                "query",
                help='words ("a phrase", prefix*, AND/OR/NOT, -word), or a path, id or error text',
                required=True,
                positional=True,
                max_length=actions.QUERY_MAX,
                metavar="QUERY",
            ),
            Param(
                "session_id",
                help="only this session's messages",
                aliases=("--session",),
                max_length=limits.PATH_MAX,
            ),
            Param("type", help="only this kind of row", enum=actions.TYPES),
            Param(
                "agent_name",
                help="only events this agent logged",
                max_length=limits.AGENT_MAX,
                surfaces=NOT_AGENT,
            ),
            PROJECT_ID.but(
                help="only events of this project", max_length=limits.PATH_MAX, surfaces=NOT_AGENT
            ),
            Param(
                "since",
                help=f"only what was written from then on: {WHEN}",
                max_length=64,
                surfaces=NOT_AGENT,
            ),
            Param(
                "until",
                help=f"only what was written before then: {WHEN}",
                max_length=64,
                surfaces=NOT_AGENT,
            ),
            Param(
                "mode",
                help="auto: paths, ids and commands as literal text, the rest as words",
                default="auto",
                enum=actions.MODES,
            ),
            LIMIT.but(help="at most this many hits"),
            Param(
                "cursor",
                help="the next page: the last page's next_cursor (same query and filters)",
                max_length=actions.CURSOR_MAX,
            ),
        ),
        surfaces=EVERYWHERE,
        result={
            "query": "string",
            "mode": "string",
            "count": "integer",
            "next_cursor": "string",
            "complete": "boolean",
            "searched_since": "string",
            "index_complete": "boolean",
            "hits": "array",
        },
        listing="hits",
        examples=(
            'vybe search "billing tables" --session-id claude:UUID',
            "vybe search /srv/app/config.yaml --mode literal",
            "vybe search 'migra*' --type user --since 7d",
        ),
    ),
)
ALIASES = ()
