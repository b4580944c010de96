"""Resume, focus and brief: where this agent stands and what to do next."""

from __future__ import annotations

from vybe.actions import resume as actions
from vybe.operations.common import LIMIT, PROJECT_DIR
from vybe.operations.model import Operation, Param, as_agent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject
    from vybe.operations.model import OperationContext

GROUPS: dict[str, str] = {}
FOCUS = Param("focus_task_id", help="make this task the focus", aliases=("--focus",))
# What a tool returns of a resume: the prompt (already within its token budget), the focus,
# the budget report (what did not fit), and the deltas of this page.
BRIEF_FIELDS = ("budget", "approx_tokens", "brief_sha256", "as_of_event_id")
DELTA_CHARS = 400


def _resume(ctx: OperationContext, v: JSONObject) -> JSONObject:
    options = {
        "project_dir": v["project_dir"],
        "focus_task_id": v["focus_task_id"],
        "limit": v["limit"],
    }
    if v["peek"]:
        return actions.peek(ctx.store, ctx.agent, **options)
    return actions.resume(ctx.store, ctx.agent, ctx.request_id, **options)


def budgeted(result: JSONObject, values: JSONObject) -> JSONObject:
    """The resume as a tool returns it: the prompt and focus whole, the packet the prompt
    was made from left out (only its budget report), this page of deltas with each message
    cut to DELTA_CHARS and, when there are more, the call that reads the next page."""
    from vybe.text import shorten

    brief = result["brief"]
    view = {k: v for k, v in result.items() if k != "brief"}
    view["brief"] = {k: brief[k] for k in BRIEF_FIELDS if k in brief}
    deltas = result["deltas"]
    view["deltas"] = [
        {**d, "message": shorten(d.get("message") or "", DELTA_CHARS)} for d in deltas
    ]
    view["more"] = None
    if deltas and len(deltas) == values["limit"]:
        since = deltas[-1]["id"]
        view["more"] = {"tool": "events", "arguments": {"all": True, "asc": True, "since": since}}
    return view


def _brief(ctx: OperationContext, v: JSONObject) -> JSONObject:
    data = actions.peek(
        ctx.store,
        ctx.agent,
        project_dir=v["project_dir"],
        focus_task_id=v["task_id"],
        limit=1,
    )
    return {"agent_name": ctx.agent, "brief": data["brief"], "prompt": data["prompt"]}


OPERATIONS = (
    Operation(
        "resume",
        "Events since my cursor (but other agents' user_prompt events: the person's words in"
        " another agent's session are that session's), my focus task, the brief and the"
        " prompt; moves the cursor.",
        _resume,
        finds="resume where I left off, start of a session, what to do next",
        params=(
            Param("peek", "boolean", "compute everything, write nothing (the cursor stays)"),
            FOCUS,
            PROJECT_DIR,
            LIMIT.but(help="at most this many events since the cursor (the rest: next time)"),
        ),
        writes=True,
        peek="peek",
        tool="resume_brief",
        result={
            "focus_task_id": "string",
            "prompt": "string",
            "deltas": "array",
            "delta_count": "integer",
            "old_cursor": "integer",
            "new_cursor": "integer",
            "brief": "object",
        },
        view=budgeted,
        examples=("vybe resume", "vybe resume --peek --project-dir ."),
    ),
    Operation(
        "focus",
        "The focus a resume would choose now; moves nothing.",
        as_agent(actions.current_focus),
        params=(PROJECT_DIR,),
        result={"focus_task_id": "string", "task": "object", "cursor": "integer"},
        examples=("vybe focus --project-dir .",),
    ),
    Operation(
        "brief",
        "The brief and its prompt, for the focus or a given task; writes nothing.",
        _brief,
        params=(Param("task_id", help="this task instead of the focus"), PROJECT_DIR),
        result={"agent_name": "string", "brief": "object", "prompt": "string"},
        examples=("vybe brief", "vybe brief --task-id T"),
    ),
)
ALIASES = ()
