"""Memory operations: scoped facts, directives and lessons that outlive a session."""

from __future__ import annotations

from vybe import limits
from vybe.actions import memory as actions
from vybe.operations.common import LIMIT
from vybe.operations.model import EVERYWHERE, NOT_AGENT, Alias, Operation, Param, mutation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS = {"memory": "Scoped memory: facts, directives and lessons agents keep."}
MEMORY = {"memory": "object", "event_id": "integer"}

KEY = Param(
    "key",
    help="a short stable key, e.g. deploy.window",
    required=True,
    aliases=("-k",),
    max_length=actions.KEY_MAX,
)
SCOPE = Param(
    "scope",
    help="where it applies: global, project, task or agent",
    default="global",
    enum=actions.SCOPES,
    aliases=("-s",),
)
SCOPE_ID = Param(
    "scope_id",
    help="the project, task or agent id (default: the current focus, or this agent)",
    max_length=limits.PATH_MAX,
)
KIND = Param(
    "kind",
    help="fact, directive (a standing instruction) or lesson",
    default="fact",
    enum=actions.KINDS,
)
WRITING = (
    SCOPE,
    SCOPE_ID,
    KIND,
    Param("pinned", "boolean", "pin it: kept first, never decays (memory pin unpins)"),
    Param("expires_in", help="time to live, e.g. 24h, 7d, 2w", surfaces=NOT_AGENT),
    Param(
        "supersedes",
        help="the key (same scope) of the entry this corrects",
        metavar="KEY",
        max_length=actions.KEY_MAX,
        surfaces=NOT_AGENT,
    ),
)


def _input(v: JSONObject) -> actions.MemoryInput:
    return actions.MemoryInput(
        key=v["key"],
        value=v["value"],
        value_type=v.get("value_type"),
        scope=v["scope"],
        scope_id=v["scope_id"],
        kind=v["kind"],
        pinned=v["pinned"],
        half_life_days=v.get("half_life_days"),
        expires_in=v["expires_in"],
        source_task_id=v.get("source_task_id"),
        supersedes=v["supersedes"],
    )


def _set(ctx: OperationContext, v: JSONObject) -> JSONObject:
    return actions.set_memory(ctx.store, ctx.agent, ctx.request_id, _input(v))


def _remember(values: JSONObject) -> JSONObject:
    """``remember "key=value"``: the entry split into the key and the value."""
    key, value = actions.parse_remember(values.pop("entry"))
    return {**values, "key": key, "value": value}


def _get(ctx: OperationContext, v: JSONObject) -> JSONObject:
    return actions.get(ctx.store, ctx.named, key=v["key"], scope=v["scope"], scope_id=v["scope_id"])


def _list(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.store.memory import MemoryQuery

    query = MemoryQuery(
        scope=v["scope"],
        scope_id=v["scope_id"],
        kind=v["kind"],
        include_superseded=v["include_superseded"],
        limit=v["limit"],
    )
    return actions.list_memory(ctx.store, ctx.named, query)


def _pin(ctx: OperationContext, v: JSONObject) -> JSONObject:
    return actions.pin(
        ctx.store,
        ctx.agent,
        ctx.request_id,
        key=v["key"],
        scope=v["scope"],
        scope_id=v["scope_id"],
        pinned=not v["unpin"],
    )


def _gc(ctx: OperationContext, v: JSONObject) -> JSONObject:
    return actions.gc(ctx.store, v["batch"])


OPERATIONS = (
    Operation(
        "memory set",
        "Store a memory; the same key in the same scope is replaced.",
        _set,
        finds="save a fact, remember this, note a decision or preference for later sessions",
        surfaces=EVERYWHERE,
        params=(
            KEY,
            Param(
                "value",
                help="what to remember",
                required=True,
                aliases=("-v",),
                max_length=actions.VALUE_MAX,
            ),
            Param(
                "value_type",
                help="how to read the value (detected when absent)",
                enum=actions.TYPES,
                aliases=("--type", "-t"),
                surfaces=NOT_AGENT,
            ),
            *WRITING,
            Param(
                "half_life_days",
                "number",
                "how fast it fades from briefs, in days (-1: the kind's default)",
                minimum=-1,
                maximum=actions.HALF_LIFE_MAX,
                surfaces=NOT_AGENT,
            ),
            Param("source_task_id", help="the task this was learned on", surfaces=NOT_AGENT),
        ),
        writes=True,
        idempotent=True,
        destructive=True,
        result=MEMORY,
        examples=(
            'vybe memory set --key deploy.window --value "never on Fridays" --kind directive',
            'vybe remember "db=postgres 16"',
        ),
    ),
    Operation(
        "memory get",
        "Read one entry (counts as an access).",
        _get,
        finds="recall a saved fact by its key",
        surfaces=EVERYWHERE,
        params=(KEY, SCOPE, SCOPE_ID),
        result={"memory": "object"},
        examples=("vybe memory get --key deploy.window",),
    ),
    Operation(
        "memory list",
        "List live entries, best first.",
        _list,
        finds="recall what was saved, list remembered facts",
        params=(
            SCOPE.but(default=None, help="only this scope: global, project, task or agent"),
            SCOPE_ID,
            KIND.but(default=None, help="only this kind: fact, directive or lesson"),
            Param("include_superseded", "boolean", "also the entries later ones corrected"),
            LIMIT,
        ),
        result={"count": "integer", "memories": "array"},
        listing="memories",
        examples=("vybe memory list --kind directive", "vybe memory list --scope task"),
    ),
    Operation(
        "memory delete",
        "Delete an entry (a missing one: deleted is false).",
        mutation(actions.delete),
        params=(KEY, SCOPE, SCOPE_ID),
        writes=True,
        idempotent=True,
        destructive=True,
        result={"key": "string", "deleted": "boolean", "event_id": "integer"},
        examples=("vybe memory delete --key deploy.window",),
    ),
    Operation(
        "memory pin",
        "Pin an entry, or unpin it.",
        _pin,
        params=(KEY, SCOPE, SCOPE_ID, Param("unpin", "boolean", "unpin it instead")),
        writes=True,
        idempotent=True,
        result=MEMORY,
        examples=("vybe memory pin --key deploy.window", "vybe memory pin --key old --unpin"),
    ),
    Operation(
        "memory gc",
        "Delete expired entries, at most batch of them.",
        _gc,
        params=(
            Param(
                "batch",
                "integer",
                "at most this many deletions",
                default=500,
                minimum=1,
                maximum=actions.GC_LIMIT_MAX,
            ),
        ),
        writes=True,
        idempotent=True,
        destructive=True,
        result={"deleted": "integer", "limit": "integer"},
        examples=("vybe memory gc --batch 1000",),
    ),
)

ALIASES = (
    Alias(
        "remember",
        "memory set",
        'Store a memory: vybe remember "key=value".',
        positionals=("entry",),
        extra=(Param("entry", help="key=value", required=True),),
        convert=_remember,
        replaces=("key", "value"),
    ),
)
