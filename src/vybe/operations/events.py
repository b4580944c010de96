"""The event log, artifacts, and push: several writes in one transaction."""

from __future__ import annotations

from vybe import limits
from vybe.actions import events as actions
from vybe.operations.common import LIMIT, TASK_ID
from vybe.operations.model import CLI, Alias, Operation, Param, reading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS = {"artifacts": "A task's artifacts: files linked to it."}


def _events(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.store.events import EventQuery

    query = EventQuery(
        agent=None if v["all"] or v["task_id"] else ctx.named,
        task_id=v["task_id"],
        kind=v["kind"],
        since_id=v["since"],
        limit=v["limit"],
        ascending=v["asc"],
        include_archived=v["include_archived"],
    )
    return actions.list_events(ctx.store, query)


def _add_artifact(ctx: OperationContext, v: JSONObject) -> JSONObject:
    return actions.add_artifact(
        ctx.store,
        ctx.agent,
        ctx.request_id,
        task_id=v["task_id"],
        file_path=v["path"],
        content_type=v["content_type"],
    )


def _stdin() -> str:
    import sys

    from vybe.errors import InvalidInput

    try:
        raw = sys.stdin.buffer.read(limits.JSON_DOCUMENT_MAX * 4 + 1)
    except (AttributeError, OSError, ValueError):  # stdin closed, or not readable
        raise InvalidInput(
            "document - needs the document on stdin, which is closed",
            context={"field": "document"},
        ) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(
            "the document on stdin is not UTF-8", context={"field": "document"}
        ) from None


def _push(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.actions import push

    text = _stdin() if v["document"] == "-" and ctx.surface == CLI else v["document"]
    document = limits.json_document("document", text)
    return push.push(ctx.store, ctx.agent, ctx.request_id, document=document)


OPERATIONS = (
    Operation(
        "events",
        "Read the event log, newest first: this agent's, a task's, or everyone's.",
        _events,
        params=(
            Param(
                "all",
                "boolean",
                "every agent's events, not only this agent's (with no agent named, every"
                " agent's all the same)",
            ),
            TASK_ID.but(required=False, aliases=(), help="only this task's events (any agent)"),
            Param("kind", help="only events of this kind, e.g. progress", max_length=128),
            Param(
                "since",
                "integer",
                "only events after this event id",
                default=0,
                minimum=0,
                maximum=2**62,
            ),
            LIMIT,
            Param("asc", "boolean", "oldest first"),
            Param("include_archived", "boolean", "also events maintain archived"),
        ),
        result={"count": "integer", "events": "array"},
        listing="events",
        examples=("vybe events --task-id T --limit 10", "vybe events --all --since 120 --asc"),
    ),
    Operation(
        "artifacts list",
        "The files linked to a task.",
        reading(actions.list_artifacts),
        params=(TASK_ID.but(aliases=()), LIMIT),
        result={"count": "integer", "artifacts": "array"},
        listing="artifacts",
        examples=("vybe artifacts list --task-id T", "vybe artifacts --task-id T"),
    ),
    Operation(
        "artifacts add",
        "Link a file to a task, content-addressed: the same path with the same bytes (SHA-256,"
        " files up to 256 MiB) already linked is that artifact (deduplicated), nothing added.",
        _add_artifact,
        finds="attach an output file or path to a task",
        params=(
            TASK_ID.but(aliases=()),
            Param("path", help="the file's path", required=True, max_length=limits.PATH_MAX),
            Param("content_type", help="its media type, e.g. text/markdown", max_length=256),
        ),
        writes=True,
        result={"artifact_id": "string", "event_id": "integer"},
        examples=("vybe artifacts add --task-id T --path out/report.md",),
    ),
    Operation(
        "push",
        "Several writes, all or nothing: an event, memories, artifacts and a task status.",
        _push,
        params=(
            Param(
                "document",
                help='the batch as JSON text, e.g. {"task_id": ..., "event": {...}}'
                " (on the command line, - reads it from stdin)",
                required=True,
                aliases=("--json",),
                max_length=limits.JSON_DOCUMENT_MAX,
            ),
        ),
        writes=True,
        result={"event_id": "integer", "artifacts": "array", "task_status": "object"},
        examples=(
            """vybe push --document '{"task_id": "T", "event": {"kind": "progress", """
            """"message": "built it"}}'""",
            "echo '{...}' | vybe push --document -",
        ),
    ),
)

ALIASES = (Alias("artifacts", "artifacts list", "The files linked to a task (artifacts list)."),)
