"""Task operations: create, read, list, start, claim, close, link and hand over tasks."""

from __future__ import annotations

import os

from vybe import limits
from vybe.actions import tasks as actions
from vybe.errors import UsageError
from vybe.operations.common import (
    FORCE,
    LEASE,
    LIMIT,
    METADATA,
    NOTE,
    PROJECT_ID,
    TASK_ID,
    lease,
)
from vybe.operations.model import (
    EVERYWHERE,
    MCP,
    NOT_AGENT,
    Alias,
    Operation,
    Param,
    mutation,
    reading,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS = {"task": "Create, start, claim, close and link tasks."}
TASK = {"task": "object", "event_id": "integer"}
ON = Param("on", help="the task it waits for", required=True, metavar="TASK_ID")
STATUS = Param("status", help="the status to set", required=True, enum=actions.STATUSES)


def _create(ctx: OperationContext, v: JSONObject) -> JSONObject:
    """A task linked to a Claude task, created from Claude's Bash, names its session; one
    created over MCP without a project is in the project of the server's working folder (the
    agent's), not in none, where it would be the focus of every project's brief."""
    import os

    from vybe.actions.hooks import CLAUDE_SESSION_ENV

    here = os.getcwd() if ctx.surface == MCP and v["project_id"] is None else None
    return actions.create(
        ctx.store,
        ctx.agent,
        ctx.request_id,
        title=v["title"],
        description=v["description"],
        priority=v["priority"],
        project_id=v["project_id"],
        metadata=v["metadata"],
        claude_session=os.environ.get(CLAUDE_SESSION_ENV),
        project_dir=here,
    )


def _list(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.store.tasks import TaskQuery

    query = TaskQuery(
        status=v["status"], project_id=v["project_id"], ready=v["ready"], limit=v["limit"]
    )
    return actions.list_tasks(ctx.store, query)


def _running_in(ctx: OperationContext) -> str | None:
    """The agent's record session this command runs in, as its agent CLI's environment
    names it (Claude Code's Bash, Codex's exec_command); None elsewhere."""
    import os

    from vybe.actions.hooks import agent_sessions

    return next(iter(agent_sessions(ctx.agent, os.environ)), None)


def _begin(ctx: OperationContext, v: JSONObject) -> JSONObject:
    return actions.begin(
        ctx.store,
        ctx.agent,
        ctx.request_id,
        task_id=v["task_id"],
        lease=lease(ctx, v),
        session=_running_in(ctx),
    )


def _claim(ctx: OperationContext, v: JSONObject) -> JSONObject:
    if bool(v["task_id"]) == bool(v["next"]):
        raise UsageError(
            "task claim needs exactly one of task_id or next",
            context={"fields": ["task_id", "next"]},
            suggested_action="name the task, or ask for the next ready one",
        )
    return actions.claim(
        ctx.store,
        ctx.agent,
        ctx.request_id,
        task_id=v["task_id"],
        project_id=v["project_id"],
        lease=lease(ctx, v),
        session=_running_in(ctx),
    )


def _heartbeat(ctx: OperationContext, v: JSONObject) -> JSONObject:
    return actions.heartbeat(
        ctx.store, ctx.agent, ctx.request_id, task_id=v["task_id"], lease=lease(ctx, v)
    )


def _assign(ctx: OperationContext, v: JSONObject) -> JSONObject:
    from vybe.actions import handoff
    from vybe.store.teams import checked_name

    limits.text("session_id", v["session_id"] or "", limits.PATH_MAX)
    context = None
    if not v["no_context"]:
        asked = v["session_id"]
        context = handoff.build(ctx.store, ctx.agent, v["task_id"], asked, os.environ)
    return actions.assign(
        ctx.store,
        ctx.agent,
        ctx.request_id,
        task_id=v["task_id"],
        to=v["to"],
        note=v["note"],
        context=context,
        to_team=checked_name("team", v["to_team"]) if v["to_team"] else None,
    )


OPERATIONS = (
    Operation(
        "task create",
        "Create a pending task.",
        _create,
        finds="add a new task or to-do to the project, plan work for later",
        surfaces=EVERYWHERE,
        params=(
            Param("title", help="a short title", required=True, max_length=limits.TITLE_MAX),
            Param(
                "description",
                help="what done means",
                default="",
                aliases=("--desc",),
                max_length=limits.DESCRIPTION_MAX,
            ),
            Param(
                "priority",
                "integer",
                "higher is more urgent",
                default=0,
                minimum=-1_000_000,
                maximum=1_000_000,
            ),
            PROJECT_ID.but(help="the project it belongs to"),
            METADATA.but(surfaces=NOT_AGENT),
        ),
        writes=True,
        result=TASK,
        examples=(
            'vybe task create --title "Migrate tables" --priority 5',
            'vybe task create --title "Write the report" --description "in docs/" --project-id P',
        ),
    ),
    Operation(
        "task get",
        "A task with its dependencies and open blockers.",
        reading(actions.get),
        surfaces=EVERYWHERE,
        params=(TASK_ID,),
        result={"task": "object", "dependencies": "object", "open_blockers": "array"},
        examples=("vybe task get --task-id T",),
    ),
    Operation(
        "task list",
        "Tasks by priority, then age.",
        _list,
        finds="list the tasks, what is left, the to-do list or backlog",
        surfaces=EVERYWHERE,
        params=(
            STATUS.but(required=False, help="only tasks with this status"),
            PROJECT_ID.but(help="only this project's tasks"),
            Param("ready", "boolean", "only pending tasks with no open blocker"),
            LIMIT,
        ),
        result={"count": "integer", "tasks": "array"},
        listing="tasks",
        examples=("vybe task list --ready --limit 5", "vybe task list --status blocked"),
    ),
    Operation(
        "task begin",
        "Claim a task, set it in progress and make it the focus.",
        _begin,
        params=(TASK_ID, LEASE),
        writes=True,
        idempotent=True,
        result=TASK,
        examples=("vybe task begin --task-id T", "vybe task begin --task-id T --lease 1h"),
    ),
    Operation(
        "task set-status",
        "Set a task's status.",
        mutation(actions.set_status),
        params=(
            TASK_ID,
            STATUS,
            Param("blocked_reason", help="why it is blocked", max_length=limits.MESSAGE_MAX),
            FORCE,
        ),
        writes=True,
        idempotent=True,
        result=TASK,
        examples=("vybe task set-status --task-id T --status pending",),
    ),
    Operation(
        "task depend",
        "Make a task wait for another (cycles are refused).",
        mutation(actions.depend),
        params=(TASK_ID.but(help="the task that waits"), ON),
        writes=True,
        idempotent=True,
        result={"task_id": "string", "depends_on": "string"},
        examples=("vybe task depend --task-id DEPLOY --on MIGRATE",),
    ),
    Operation(
        "task undepend",
        "Remove a task's dependency on another.",
        mutation(actions.undepend),
        params=(TASK_ID.but(help="the task that waits"), ON),
        writes=True,
        idempotent=True,
        destructive=True,
        result={"task_id": "string", "depends_on": "string"},
        examples=("vybe task undepend --task-id DEPLOY --on MIGRATE",),
    ),
    Operation(
        "task claim",
        "Claim a task, or the best ready one (next), under a lease.",
        _claim,
        finds="pick up the next task, what should I work on next",
        params=(
            TASK_ID.but(required=False, help="the task to claim (or next)"),
            Param("next", "boolean", "claim the best ready task: priority, then age"),
            PROJECT_ID.but(help="with next: only this project's tasks"),
            LEASE,
        ),
        writes=True,
        result=TASK,
        examples=("vybe task claim --next --lease 10m", "vybe task claim --task-id T"),
    ),
    Operation(
        "task heartbeat",
        "Extend this agent's claim on a task.",
        _heartbeat,
        params=(TASK_ID, LEASE),
        writes=True,
        idempotent=True,
        result=TASK,
        examples=("vybe task heartbeat --task-id T --lease 15m",),
    ),
    Operation(
        "task assign",
        "Hand a task to another agent: its next resume takes it.",
        _assign,
        finds="hand off the task to another agent or session",
        params=(
            TASK_ID,
            Param("to", help="the receiving agent", required=True, max_length=limits.AGENT_MAX),
            NOTE.but(help="a word for the receiver"),
            Param(
                "session_id",
                help="the record session the context comes from (default: the one this"
                " agent's newest begin or claim of the task ran in, else the one this command"
                " runs in; with neither, the hand-off says no session worked on the task and"
                " carries no one's words)",
                max_length=limits.PATH_MAX,
            ),
            Param("no_context", "boolean", "hand over the task alone, without context"),
            Param(
                "to_team",
                help="the receiver's team, on a shared server: the task and this hand-off"
                " become that team's (refused without it for an agent of another team)",
                metavar="TEAM",
                max_length=63,
            ),
        ),
        writes=True,
        result={**TASK, "context": "object", "team": "string"},
        examples=(
            'vybe task assign --task-id T --to bob --note "yours now"',
            "vybe task assign --task-id T --to codex --session-id claude:UUID",
            "vybe task assign --task-id T --to bob --to-team payments",
        ),
    ),
    Operation(
        "task done",
        "Complete a task, with a note (refused while a task it depends on is open).",
        mutation(actions.done),
        finds="mark the task done, finished, completed",
        surfaces=EVERYWHERE,
        params=(TASK_ID, NOTE, FORCE),
        writes=True,
        idempotent=True,
        result=TASK,
        examples=('vybe task done --task-id T --note "all green"', 'vybe done T --note "shipped"'),
    ),
    Operation(
        "task block",
        "Block a task with a reason.",
        mutation(actions.block),
        finds="stuck, blocked, cannot go on, report a blocker",
        surfaces=EVERYWHERE,
        params=(
            TASK_ID,
            Param(
                "reason",
                help="why it cannot go on",
                required=True,
                max_length=limits.MESSAGE_MAX,
            ),
            Param("failure", "boolean", "a failure: resume will not offer it again"),
        ),
        writes=True,
        idempotent=True,
        result=TASK,
        examples=('vybe task block --task-id T --reason "needs a key"',),
    ),
    Operation(
        "task note",
        "Log progress on a task (kind reasoning: intent and approach).",
        mutation(actions.note),
        finds="log progress, record what I did, leave a note",
        surfaces=EVERYWHERE,
        params=(
            TASK_ID,
            Param("message", help="the note", required=True, max_length=limits.MESSAGE_MAX),
            Param(
                "kind",
                help="the event kind, e.g. progress or reasoning",
                default="progress",
                max_length=limits.KIND_MAX,
            ),
        ),
        writes=True,
        result={"event_id": "integer", "task_id": "string"},
        examples=(
            'vybe task note --task-id T --message "copied 3 of 5 tables"',
            'vybe note T "copied 3 of 5 tables"',
        ),
    ),
)

ALIASES = (
    Alias("done", "task done", "Complete a task: vybe done TASK_ID.", positionals=("task_id",)),
    Alias("block", "task block", "Block a task: vybe block TASK_ID.", positionals=("task_id",)),
    Alias(
        "note",
        "task note",
        "Log progress: vybe note TASK_ID MESSAGE.",
        positionals=("task_id", "message"),
    ),
)
