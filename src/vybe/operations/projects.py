"""Project operations: projects group tasks, memory and events."""

from __future__ import annotations

from vybe import limits
from vybe.actions import projects as actions
from vybe.errors import UsageError
from vybe.operations.common import LIMIT, METADATA, PROJECT_ID
from vybe.operations.model import Operation, Param, mutation, reading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS = {"project": "Projects group tasks, memory and events."}
PROJECT = {"project": "object"}
ID = PROJECT_ID.but(required=True, aliases=("--id",))


def _focus(ctx: OperationContext, v: JSONObject) -> JSONObject:
    if bool(v["project_id"]) == bool(v["clear"]):
        raise UsageError(
            "project focus needs exactly one of project_id or clear",
            context={"fields": ["project_id", "clear"]},
            suggested_action="name the project, or clear the focus",
        )
    project_id = None if v["clear"] else v["project_id"]
    return actions.focus(ctx.store, ctx.agent, ctx.request_id, project_id=project_id)


OPERATIONS = (
    Operation(
        "project create",
        "Create a project (an existing id is returned as it is).",
        mutation(actions.create),
        params=(
            Param("name", help="its name", required=True, max_length=limits.TITLE_MAX),
            PROJECT_ID.but(aliases=("--id",), help="e.g. the project's folder (generated)"),
            METADATA,
        ),
        writes=True,
        idempotent=True,
        result=PROJECT,
        examples=("vybe project create --name billing --project-id /srv/billing",),
    ),
    Operation(
        "project get",
        "One project.",
        reading(actions.get),
        params=(ID,),
        result=PROJECT,
        examples=("vybe project get --project-id /srv/billing",),
    ),
    Operation(
        "project list",
        "Projects, newest first.",
        reading(actions.list_projects),
        params=(LIMIT,),
        result={"count": "integer", "projects": "array"},
        listing="projects",
        examples=("vybe project list --limit 10",),
    ),
    Operation(
        "project focus",
        "Set (or clear) this agent's project.",
        _focus,
        params=(
            PROJECT_ID.but(aliases=("--id",), help="the project to work in"),
            Param("clear", "boolean", "work in no project"),
        ),
        writes=True,
        idempotent=True,
        result={"agent_name": "string", "focus_project_id": "string"},
        examples=("vybe project focus --project-id /srv/billing", "vybe project focus --clear"),
    ),
    Operation(
        "project delete",
        "Delete a project; its tasks stay, in no project.",
        mutation(actions.delete),
        params=(ID, Param("force", "boolean", "required: the deletion cannot be undone")),
        writes=True,
        idempotent=True,
        destructive=True,
        result={"deleted": "boolean"},
        examples=("vybe project delete --project-id /srv/billing --force",),
    ),
)
ALIASES = ()
