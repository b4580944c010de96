"""The brief: a pure function of the state, and its prompt text under a token budget."""

from __future__ import annotations

import sqlite3

from vybe import clock, jsonio
from vybe.digest import sha256_hex
from vybe.store import brief as brief_rows
from vybe.store import memory as memory_rows
from vybe.store import tasks as task_rows
from vybe.text import shorten
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

BRIEF_VERSION = "v1"
BUDGET_TOKENS = 1500
MEMORY_LIMIT = 50
TASK_EVENTS_LIMIT = 20
ARTIFACTS_LIMIT = 100
REASONING_LIMIT = 10
PROMPTS_LIMIT = 5
PIPELINE_LIMIT = 5
# The fixed sections stay outside the budget, so a title is cut there (the brief keeps it whole).
HEAD_TITLE_CHARS = 200
NEXT_TITLE_CHARS = 100
USER_PROMPT_KIND = "user_prompt"
REASONING_KIND = "reasoning"
STALE_DAYS, VERY_STALE_DAYS = 30, 90
LINE_MAX = 400
HEAD = "== VYBE (task tracker) =="  # the brief's first line: how a thread shows it holds one
COMMANDS_HEAD = "== COMMANDS =="
HANDOFF_CHARS = 5000  # the section of a hand-off's context, built within its own budget
EPOCH = "1970-01-01T00:00:00.000000Z"


def estimate_tokens(text: str) -> int:
    """Characters / 4, rounded up: close enough to steer a budget, and stdlib only."""
    return (len(text) + 3) // 4


def _memory(
    conn: sqlite3.Connection, task: JSONObject | None, project: JSONObject | None, as_of: str | None
) -> list[JSONObject]:
    """Global, project and task memory (never agent memory), best first: the focus
    project's, or with no project focus every project's (the seed's rule)."""
    scopes: list[tuple[str, str | None]] = [("global", "")]
    scopes.append(("project", project["id"] if project is not None else None))
    if task is not None:
        scopes.append(("task", task["id"]))
    return memory_rows.ranked(conn, scopes, as_of or EPOCH, clock.now_iso(), MEMORY_LIMIT)


def build(
    conn: sqlite3.Connection,
    *,
    task: JSONObject | None,
    project: JSONObject | None,
    as_of_event_id: int,
    as_of: str | None,
    agent: str | None = None,
    words_given: bool = False,
) -> JSONObject:
    """The brief packet, read inside one snapshot; identical state gives an identical packet.
    ``agent``'s brief carries the context handed to it with the task, if any.
    ``words_given``: the person's words go beside the brief (``without_words``), so their
    recent prompts are not read."""
    project_id = project["id"] if project else None
    if task is not None:  # a task's rows: a brief without a focus loads none of their SQL
        from vybe.store import artifacts as artifact_rows
        from vybe.store import handoffs as handoff_rows

        recent = brief_rows.task_events(conn, task["id"], TASK_EVENTS_LIMIT)
        reasoning = brief_rows.task_events(conn, task["id"], REASONING_LIMIT, REASONING_KIND)
        artifacts = artifact_rows.for_task(conn, task["id"], ARTIFACTS_LIMIT)
        handoff = handoff_rows.for_task(conn, task["id"], agent) if agent else None
    else:
        recent = brief_rows.scope_events(conn, project_id, TASK_EVENTS_LIMIT)
        reasoning = brief_rows.kind_events(conn, REASONING_KIND, project_id, REASONING_LIMIT)
        artifacts, handoff = [], None
    pipeline = task_rows.select(
        conn, task_rows.TaskQuery(project_id=project_id, ready=True, limit=PIPELINE_LIMIT + 1)
    )
    # A hand-off carries the words of the session that worked on the task, and no other's:
    # the project's newest prompts may be any session's.
    prompts = (
        []
        if handoff or words_given
        else brief_rows.kind_events(conn, USER_PROMPT_KIND, project_id, PROMPTS_LIMIT)
    )
    return {
        "brief_version": BRIEF_VERSION,
        "as_of_event_id": as_of_event_id,
        "as_of": as_of,
        "task": task,
        "project": project,
        "relevant_memory": _memory(conn, task, project, as_of),
        "recent_events": recent,
        "recent_prompts": prompts,
        "prior_reasoning": reasoning,
        "artifacts": artifacts,
        "counts": task_rows.status_counts(conn, project_id),
        "pipeline": [
            {"id": t["id"], "title": t["title"], "priority": t["priority"]}
            for t in pipeline
            if task is None or t["id"] != task["id"]
        ][:PIPELINE_LIMIT],
        "handoff": handoff,
    }


class Prompt(Row):
    """The prompt text, what the budget held, and which memory entries it shows."""

    __slots__ = ()
    text: str
    budget: JSONObject
    memory_ids: list[str] = []  # noqa: RUF012  # a default, never changed in place


class _Budget:
    def __init__(self, limit: int) -> None:
        self.limit, self.used = limit, 0
        self.lines: list[str] = []
        self.dropped: dict[str, int] = {}

    def section(self, name: str, title: str, items: list[tuple[str, str | None]]) -> list[str]:
        """Add lines while they fit; the section stops at the first that does not."""
        shown: list[str] = []
        for index, (line, ident) in enumerate(items):
            cost = estimate_tokens(line + "\n")
            if not shown:
                cost += estimate_tokens(title + "\n")
            if self.used + cost > self.limit:
                self.dropped[name] = len(items) - index
                break
            if not shown:
                self.lines.append(title)
            self.lines.append(line)
            self.used += cost
            shown.append(ident or "")
        else:
            self.dropped[name] = 0
        return shown

    def note(self, line: str) -> None:
        cost = estimate_tokens(line + "\n")
        if self.used + cost <= self.limit:
            self.lines.append(line)
            self.used += cost


def _fact_line(entry: JSONObject) -> str:
    age = entry.get("age_days", 0)
    tag = ""
    if not entry["pinned"] and entry["expires_at"] is None:
        if age >= VERY_STALE_DAYS:
            tag = f" [stale: {age}d — verify]"
        elif age >= STALE_DAYS:
            tag = f" [{age}d old]"
    return shorten(f"- {entry['key']} = {entry['value']}", LINE_MAX) + tag


def _reasoning_line(event: JSONObject) -> str:
    meta = event.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    parts = [str(meta[k]) for k in ("intent", "approach") if meta.get(k)]
    return shorten("- " + (" → ".join(parts) if parts else event["message"]), LINE_MAX)


def _variable(budget: _Budget, brief: JSONObject) -> list[str]:
    memory = brief["relevant_memory"]
    by_kind = {k: [m for m in memory if m["kind"] == k] for k in ("directive", "lesson", "fact")}
    shown = budget.section(
        "directives",
        "=== Directives ===",
        [(shorten(f"- {m['value']}", LINE_MAX), m["id"]) for m in by_kind["directive"]],
    )
    shown += budget.section(
        "lessons",
        "=== Lessons ===",
        [(shorten(f"- {m['key']}: {m['value']}", LINE_MAX), m["id"]) for m in by_kind["lesson"]],
    )
    facts = budget.section(
        "facts", "=== Facts ===", [(_fact_line(m), m["id"]) for m in by_kind["fact"]]
    )
    if facts:
        budget.note("(Facts may be out of date: verify before relying on them.)")
    shown += facts
    budget.section(
        "prompts",
        "=== What the user was working on recently ===",
        [(shorten(f"- {e['message']}", 122), None) for e in reversed(brief["recent_prompts"])],
    )
    budget.section(
        "events",
        "=== Recent activity ===",
        [
            (shorten(f"- [{e['kind']}] {e['message']}", LINE_MAX), None)
            for e in reversed(brief["recent_events"])
        ],
    )
    budget.section(
        "reasoning",
        "=== Prior reasoning ===",
        [(_reasoning_line(e), None) for e in reversed(brief["prior_reasoning"])],
    )
    return [i for i in shown if i]


def _head(brief: JSONObject) -> list[str]:
    task, counts = brief["task"], brief["counts"]
    lines = [HEAD]
    if task:
        title = shorten(task["title"], HEAD_TITLE_CHARS)
        lines += [f"Task: {title}", f"Status: {task['status']}", f"ID: {task['id']}"]
        if task["description"]:
            lines.append("Description: " + shorten(task["description"], 1000))
    else:
        lines.append("No task assigned. You can work freely.")
    lines.append(f"{counts['pending'] + counts['in_progress']} task(s) awaiting action.")
    lines += [
        "",
        "Decision protocol (strict):",
        "1. Work on the task above; do not start other work unless the user asks.",
        "2. Finished: close it with DONE. Cannot go on: report STUCK with the reason.",
        "3. Log real progress with LOG; keep durable facts with SAVE.",
        "4. Never redo what the activity below shows as done.",
        "",
    ]
    return lines


def _tail(brief: JSONObject, vybe: str) -> list[str]:
    """Progress, what is next, and the commands, each a line that runs as it stands (``vybe``:
    the running vybe's absolute path and the agent, ``config.command_line``)."""
    counts, task = brief["counts"], brief["task"]
    tid = task["id"] if task else "<task_id>"
    lines = [
        "",
        f"Progress: {counts['pending']} pending, {counts['in_progress']} in progress,"
        f" {counts['completed']} completed, {counts['blocked']} blocked",
    ]
    if brief["pipeline"]:
        lines.append("Up next:")
        lines += [
            f"- [{t['priority']}] {shorten(t['title'], NEXT_TITLE_CHARS)} ({t['id']})"
            for t in brief["pipeline"]
        ]
    scope = f" --scope task --scope-id {tid}" if task else ""
    lines += [
        "",
        COMMANDS_HEAD,
        f'DONE:  {vybe} done {tid} --note "<summary>"',
        f'STUCK: {vybe} block {tid} --reason "<why>" --failure',
        f'LOG:   {vybe} note {tid} "<what changed>"',
        f'SAVE:  {vybe} remember "<key>=<value>"{scope}',
        f'THINK: {vybe} note {tid} "<intent and approach>" --kind reasoning',
        "(Each command gets a fresh request id; to retry one safely, pass the same"
        " --request-id both times.)",
    ]
    return lines


QUOTE = "| "  # starts every line of the sending agent's texts: none can pose as a marker


def _quoted(text: str) -> str:
    return "\n".join(QUOTE + line for line in text.split("\n"))


def _span_words(handoff: JSONObject) -> str:
    """Which of the person's messages the quotes come from."""
    span = handoff.get("span")
    if not span:
        return "from the whole session"
    end = f"until it began another task at {span['until']}" if span["until"] else "until now"
    return (
        f"the session's first, and those from the one before {handoff['from_agent']}"
        f" took this task at {span['from']} {end}"
    )


def handoff_section(brief: JSONObject) -> list[str]:
    """The context another agent handed over with the task: the person's words quoted as
    theirs, everything else labelled as the other agent's, each of its lines after ``| ``."""
    handoff = brief.get("handoff")
    if not handoff:
        return []
    sender = handoff["from_agent"]
    if handoff["session_id"] is None:
        return [
            f"=== Handed over by {sender} ===",
            f"No recorded session worked on this task (none began or claimed it, and {sender}"
            " handed it over from none): nothing of the user's words or of its work comes"
            " with it. Ask the user, or search the record (`vybe search`).",
            "",
        ]
    lines = [
        f"=== Handed over by {sender} (from its session {handoff['session_id']}) ===",
        f"Everything in this section comes from {sender}'s record, not from you; only the"
        " quoted messages are the user's own words; every line of its own texts starts"
        f" with '{QUOTE.strip()}'.",
    ]
    words = handoff["user_words"]
    if words:
        total = handoff["user_messages"]
        lines.append(
            f"The user's own words (verbatim, {len(words)} of {total} messages:"
            f" {_span_words(handoff)}):"
        )
        for word in words:
            lines += [f"--- #{word['seq']} {word['at']}", word["text"]]
        lines.append("--- end of the user's words")
    state = handoff["working_state"]
    if state["source"] == "now":
        lines += [
            f"{sender}'s last working state (its checkpoint's NOW, not the user's):",
            _quoted(state["now"]),
        ]
    else:
        lines.append(
            f"The session has no checkpoint: {sender}'s working state here is only its last"
            " replies and tool failures below."
        )
        for reply in state["replies"]:
            lines += [f"{sender}'s last reply (its words, not the user's):", _quoted(reply)]
        for failure in state["failures"]:
            lines += [f"A tool failure {sender} hit:", _quoted(failure)]
    if handoff["references"]:
        lines.append("Exact references found there: " + ", ".join(handoff["references"]))
    return [shorten("\n".join(lines), HANDOFF_CHARS, "\n[cut: the rest is in the record]"), ""]


def without_words(brief: JSONObject) -> JSONObject:
    """The packet without the person's words (the recent prompts, and their events in the
    activity): for a context that gives them back verbatim in a section of its own."""
    activity = [e for e in brief["recent_events"] if e["kind"] != USER_PROMPT_KIND]
    return {**brief, "recent_prompts": [], "recent_events": activity}


def render_prompt(brief: JSONObject, vybe: str, budget_tokens: int = BUDGET_TOKENS) -> Prompt:
    """Fixed sections always; variable ones share the budget in priority order. ``vybe``
    starts every command line shown (``config.command_line(agent)``)."""
    budget = _Budget(budget_tokens)
    memory_ids = _variable(budget, brief)
    text = "\n".join([*_head(brief), *handoff_section(brief), *budget.lines, *_tail(brief, vybe)])
    report = {"limit": budget_tokens, "used": budget.used, "dropped": budget.dropped}
    return Prompt(text, report, memory_ids)


def digest(brief: JSONObject) -> str:
    canonical = jsonio.dumps(brief, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_hex(canonical.encode("utf-8"))


def finish(
    brief: JSONObject, vybe: str, budget_tokens: int = BUDGET_TOKENS, digested: bool = True
) -> tuple[JSONObject, Prompt]:
    """Add the budget report, the size and the digest; returns the brief and its prompt.
    ``digested`` False: no digest, for a hook's brief (no one compares its packet, and its
    canonical JSON is a good part of a session start's own work)."""
    prompt = render_prompt(brief, vybe, budget_tokens)
    brief = {**brief, "budget": prompt.budget, "approx_tokens": estimate_tokens(prompt.text)}
    if digested:
        brief["brief_sha256"] = digest(brief)
    return brief, prompt
