"""SessionStart: the brief; after a compaction also the person's own words given back, the
pinned directives, how to search the record for the rest and the compaction's receipt; on a
resume of a thread that already holds the brief, only what changed since.

Every handler takes a ``Hook`` and returns context text or None; ``vybe hook run`` turns
that into the only output the event accepts and swallows every failure. Each agent's module
(claude_code, codex) maps its events onto the handlers of this package, a module an event,
with its own payloads' quirks.
"""

from __future__ import annotations

from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import CONTEXT_LIMIT, Hook, log_failure

# The record (vybe.store.record, vybe.context) is imported by the handlers that write or
# read it: a session start (the brief) never touches it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject
    from vybe.store.record import MessageRow


COMPACT_BRIEF_CHARS = 3000

DIRECTIVES_CHARS = 1000

RESUME_LIMIT = 100  # events read as deltas at session start (a brief needs no more)

# A resumed thread that holds the brief gets a delta: how far back to look for it, and what
# a compaction leaves in Claude's transcript and in Codex's rollout (the brief is gone then).
HOLDS_BRIEF_BYTES = 8 * 1024 * 1024

HOLDS_BRIEF_CHUNK = 256 * 1024

COMPACTED_MARKS = (b'"compact_boundary"', b'"type":"compacted"')

RESUMED_HEAD = "== VYBE (resumed: the brief earlier in this thread still holds) =="

DELTA_EVENTS = 10

QUIET_KINDS = ("user_prompt", "session_end")  # the thread holds its prompts; ends are noise

HARNESSES = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}

RECEIPT_LINE_CHARS = 300


def brief(hook: Hook, words_given: bool = False) -> JSONObject:
    """Resume in this folder's project: the cursor moves, the brief and its prompt come back.
    Nothing goes to the idempotency ledger (no one could replay a hook's resume) and the
    memory shown is not counted as read: the write stays a few pages on any store; nor is
    the packet digested (no one compares it). ``words_given``: the person's words come
    beside it, so the brief leaves them out."""
    from vybe.actions import resume

    return resume.resume(
        hook.store,
        hook.agent,
        None,
        project_dir=hook.cwd,
        limit=RESUME_LIMIT,
        count_reads=False,
        words_given=words_given,
        digested=False,
    )


def brief_prompt(hook: Hook) -> str:
    """The brief as it would read now, with nothing written (a status question)."""
    from vybe.actions import resume

    prompt: str = resume.peek(hook.store, hook.agent, project_dir=hook.cwd)["prompt"]
    return prompt


def pinned_directives(packet: JSONObject) -> str:
    """The pinned directives of the brief, each whole, so that no budget cut drops one."""
    lines = [
        f"- {m['value']}"
        for m in packet["relevant_memory"]
        if m["kind"] == "directive" and m["pinned"]
    ]
    text = "\n".join(["## Pinned directives", *lines]) if lines else ""
    return text[:DIRECTIVES_CHARS]


def users_words(
    hook: Hook, room_chars: int, kept: set[str]
) -> tuple[str, list[MessageRow], list[Any], int]:
    """The person's own messages of this session, verbatim, within the budget and the room,
    chosen among the first and the newest (``user_words.WINDOW``), but for those the harness
    ``kept`` in its own context (texts): the section's text, the messages read, the ones
    given back, and how many messages of theirs the session holds."""
    from vybe.actions import user_words

    rows, typed = hook_actions.persons_messages(hook.store, hook.record_session, user_words.WINDOW)
    budget = min(user_words.TOKEN_BUDGET, max(0, room_chars - 200) // 4)
    chosen = user_words.choose([r for r in rows if r.text.strip() not in kept], budget)
    return user_words.render(chosen, typed), rows, chosen, typed


def receipt_line(
    hook: Hook,
    rows: list[MessageRow],
    chosen: list[Any],
    seen: tuple[list[str], set[str]],
    typed: int,
) -> str:
    """This compaction's receipt completed, in one line; nothing when it cannot be written
    (the person's words are given back all the same). ``seen``: the transcript's tail and
    the texts the harness kept (``harness_kept``); the rest as ``users_words`` gives it."""
    from vybe.context.receipt import line
    from vybe.integrations.hooks import compaction

    try:
        receipt = compaction.given_back(hook, rows, chosen, seen)
    except Exception as error:
        log_failure(hook.target, hook.event, error)
        return ""
    earlier = typed - len(rows)  # read by no choice: in the record only
    count = receipt["compactions"]
    return line(count, receipt, HARNESSES[hook.target], earlier)[:RECEIPT_LINE_CHARS]


def harness_kept(hook: Hook) -> tuple[list[str], set[str]]:
    """The transcript's tail and the texts of the person's messages the harness's compaction
    kept in its context (``compaction.read_compaction``); nothing known when it cannot be
    read (then every message of theirs is given back)."""
    from vybe.integrations.hooks import compaction

    try:
        return compaction.read_compaction(hook)
    except Exception as error:
        log_failure(hook.target, hook.event, error)
        return [], set()


def holds_brief(path: str) -> bool:
    """Whether the transcript (Claude's) or rollout (Codex's) holds a full brief since its
    last compaction: read backwards from the end, at most HOLDS_BRIEF_BYTES."""
    from vybe.actions.brief import HEAD

    mark = HEAD.encode()
    try:
        with open(path, "rb") as handle:
            end = handle.seek(0, 2)
            position, carry = end, b""
            while position > 0 and end - position < HOLDS_BRIEF_BYTES:
                step = min(HOLDS_BRIEF_CHUNK, position)
                position -= step
                handle.seek(position)
                chunk = handle.read(step) + carry
                brief_at = chunk.rfind(mark)
                compacted_at = max(chunk.rfind(m) for m in COMPACTED_MARKS)
                if brief_at >= 0 or compacted_at >= 0:
                    return brief_at > compacted_at
                carry = chunk[: len(mark) + 32]  # a mark cut by the chunk's start
    except (OSError, ValueError):
        return False
    return False


def resume_delta(resumed: JSONObject) -> str:
    """What changed since the brief this thread already holds: the focus, the others' events
    since this agent's cursor, a hand-off's context that came with them, the progress, what
    is up next and the commands (a full brief is not repeated)."""
    from vybe.actions.brief import COMMANDS_HEAD, handoff_section

    packet, prompt = resumed["brief"], resumed["prompt"]
    task, counts = packet["task"], packet["counts"]
    lines = [RESUMED_HEAD]
    focus = f"Focus: {task['title']} ({task['id']}, {task['status']})" if task else ""
    lines.append(focus or "No task assigned. You can work freely.")
    news = [e for e in resumed["deltas"] if e["kind"] not in QUIET_KINDS][-DELTA_EVENTS:]
    if news:
        lines.append(f"Since the brief above ({len(news)} of the newest events):")
        lines += [
            hook_actions.clip(f"- [{e['kind']}] {e['message']}", 200, stored=True) for e in news
        ]
    handoff = packet.get("handoff")
    if handoff and any(e["id"] == handoff["event_id"] for e in resumed["deltas"]):
        lines += ["", *handoff_section(packet)]
    lines.append(
        f"Progress: {counts['pending']} pending, {counts['in_progress']} in progress,"
        f" {counts['completed']} completed, {counts['blocked']} blocked"
    )
    if packet["pipeline"]:
        lines.append(
            "Up next: " + "; ".join(f"{t['title'][:80]} ({t['id']})" for t in packet["pipeline"])
        )
    commands = prompt[prompt.find(COMMANDS_HEAD) :] if COMMANDS_HEAD in prompt else ""
    return "\n".join([*lines, "", commands]).rstrip()


def search_hint(hook: Hook) -> str:
    """How to find again what a compaction let go: the exact search command of this session,
    run as this agent from this vybe."""
    from vybe import config

    command = config.command_line(
        hook.agent, "search", "<words>", "--session-id", hook.record_session
    )
    return (
        "## What the compaction let go\nEvery earlier message of this session (the user's,"
        " yours, the tools' output) is still in the vybe record. Search it for words,"
        ' a "phrase", a prefix*, or a path, id or error text exactly as written:\n' + command
    )


def session_start(hook: Hook) -> str | None:
    """The brief; after a compaction also the user's own words, the pinned directives and
    how to search the record for the rest; on a resume of a thread that already holds the
    brief, only what changed since."""
    source = hook.text("source")
    # After a compaction the person's words are given back verbatim, once: not also among
    # the brief's recent prompts and activity.
    resumed = brief(hook, words_given=source == "compact")
    if source == "resume" and holds_brief(hook.text("transcript_path")):
        return resume_delta(resumed)
    if source != "compact":
        prompt: str = resumed["prompt"]
        return prompt
    parts = [
        resumed["prompt"][:COMPACT_BRIEF_CHARS],
        pinned_directives(resumed["brief"]),
        search_hint(hook),
    ]
    room = CONTEXT_LIMIT - RECEIPT_LINE_CHARS - sum(len(p) + 2 for p in parts)
    seen = harness_kept(hook)  # what the harness's compaction kept is not given twice
    words, rows, chosen, typed = users_words(hook, room, seen[1])
    parts = [receipt_line(hook, rows, chosen, seen, typed), *parts, words]
    return "\n\n".join(part for part in parts if part)
