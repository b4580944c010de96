"""maintain: one bounded round of housekeeping (the hooks run it too)."""

from __future__ import annotations

from vybe.actions import maintain as actions
from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS: dict[str, str] = {}
DEFAULTS = actions.Options()
RETENTION = f"{DEFAULTS.retention.days}d"


def _count(name: str, help: str, default: int) -> Param:
    return Param(name, "integer", help, default=default, minimum=0, maximum=100_000)


def _maintain(ctx: OperationContext, v: JSONObject) -> JSONObject:
    options = actions.Options(
        gc_limit=v["gc_limit"],
        threshold=v["summarize_threshold"],
        keep=v["keep"],
        max_tasks=v["max_tasks"],
        retention=v["retention"],
        prune_limit=v["prune_limit"],
        checkpoint=not v["no_checkpoint"],
        kept_for=tuple(sorted(ctx.settings.file_values.get("retention", {}).items())),
    )
    if v["dry_run"]:
        return actions.retention_dry_run(ctx.store, options)
    return actions.maintain(ctx.store, ctx.agent, options, ctx.request_id)


OPERATIONS = (
    Operation(
        "maintain",
        "Memory gc, fold long task logs into summaries, prune archived events, forget what"
        " config.yaml's retention: keeps no longer, checkpoint.",
        _maintain,
        params=(
            _count("gc_limit", "expired memories deleted at most", DEFAULTS.gc_limit),
            Param(
                "summarize_threshold",
                "integer",
                "fold a task's log once it has more live events than this",
                default=DEFAULTS.threshold,
                minimum=2,
                maximum=100_000,
            ),
            _count("keep", "newest events of a task kept live", DEFAULTS.keep),
            _count("max_tasks", "tasks folded per call at most", DEFAULTS.max_tasks),
            Param(
                "retention",
                "duration",
                "archived events older than this are pruned",
                default=RETENTION,
            ),
            _count("prune_limit", "archived events pruned at most", DEFAULTS.prune_limit),
            Param("no_checkpoint", "boolean", "skip the WAL checkpoint"),
            Param(
                "dry_run",
                "boolean",
                "say what config.yaml's retention: would forget, change nothing",
            ),
        ),
        writes=True,
        peek="dry_run",
        surfaces=CLI_ONLY,
        result={"gc": "object", "summaries": "object"},
        examples=(
            "vybe maintain",
            "vybe maintain --dry-run",
            "vybe maintain --keep 10 --retention 30d",
        ),
    ),
)
ALIASES = ()
