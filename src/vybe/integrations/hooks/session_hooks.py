"""The hook handlers Claude Code and Codex share: the brief at session start, the person's
prompts kept verbatim, failed tool calls, the compaction's receipt and the words given back
after it, the transcript brought into the record, the session's end and the commits made in it.

Every handler takes a ``Hook`` and returns context text or None; ``vybe hook run`` turns
that into the only output the event accepts and swallows every failure. Each agent's module
(claude_code, codex) maps its events onto these, with its own payloads' quirks.
"""

from __future__ import annotations

import os

from vybe import jsonio
from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import CONTEXT_LIMIT, IMPORT_WAIT, Hook, import_lock, log_failure

# The record (vybe.store.record, vybe.context) is imported by the handlers that write or
# read it: a session start (the brief) never touches it.
TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from typing import Any

    from vybe.integrations.importers.transcript_import import SkipHooked
    from vybe.store.record import MessageRow

PROMPT_EVENT_CHARS = 500

INPUT_PREVIEW_CHARS = 2000

ERROR_PREVIEW_CHARS = 4000

COMPACT_BRIEF_CHARS = 3000

DIRECTIVES_CHARS = 1000

MAINTAIN_STAMP = "maintain.stamp"

MAINTAIN_EVERY_SECONDS = 6 * 3600

RESUME_LIMIT = 100  # events read as deltas at session start (a brief needs no more)

PROMPT_WAITS_FOR_IMPORT = 1.0  # seconds a prompt waits for a running transcript import

# What one hook's import may read: a first import of a long session goes on next hook,
# well inside the hook's timeout.
IMPORT_BUDGET_BYTES = 4 * 1024 * 1024

IMPORT_BUDGET_SECONDS = 2.0

# The questions about where things stand, as a person types them (any case). A prompt holding
# none needs no regular expression: re (with enum) is kept off the hook path until then, and
# the pattern only adds the word boundaries (re caches what it compiles).
STATUS_QUESTIONS = (
    "brief me",
    "status",
    "where are we",
    "where were we",
    "what's next",
    "whats next",
    *(f"what {tense} i {doing}" for tense in ("was", "am") for doing in ("doing", "working on")),
)
STATUS_ASK = r"(?i)\b(" + "|".join(STATUS_QUESTIONS) + r")\b"  # no regex character in them

# A resumed thread that holds the brief gets a delta: how far back to look for it, and what
# a compaction leaves in Claude's transcript and in Codex's rollout (the brief is gone then).
HOLDS_BRIEF_BYTES = 8 * 1024 * 1024

HOLDS_BRIEF_CHUNK = 256 * 1024

COMPACTED_MARKS = (b'"compact_boundary"', b'"type":"compacted"')

RESUMED_HEAD = "== VYBE (resumed: the brief earlier in this thread still holds) =="

DELTA_EVENTS = 10

QUIET_KINDS = ("user_prompt", "session_end")  # the thread holds its prompts; ends are noise

HARNESSES = {"claude": "Claude Code", "codex": "Codex"}

RECEIPT_LINE_CHARS = 300


def brief(hook: Hook, words_given: bool = False) -> dict:
    """Resume in this folder's project: the cursor moves, the brief and its prompt come back.
    Nothing goes to the idempotency ledger (no one could replay a hook's resume) and the
    memory shown is not counted as read: the write stays a few pages on any store.
    ``words_given``: the person's words come beside it, so the brief leaves them out."""
    from vybe.actions import resume

    return resume.resume(
        hook.store,
        hook.agent,
        None,
        project_dir=hook.cwd,
        limit=RESUME_LIMIT,
        count_reads=False,
        words_given=words_given,
    )


def brief_prompt(hook: Hook) -> str:
    """The brief as it would read now, with nothing written (a status question)."""
    from vybe.actions import resume

    return resume.peek(hook.store, hook.agent, project_dir=hook.cwd)["prompt"]


def pinned_directives(packet: dict) -> str:
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
        count = hook_actions.compactions(hook.store, hook.record_session)
    except Exception as error:
        log_failure(hook.target, hook.event, error)
        return ""
    earlier = typed - len(rows)  # read by no choice: in the record only
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


def pre_compact(hook: Hook) -> None:
    """Open the receipt of the compaction about to happen (a failure loses only that)."""
    from vybe.integrations.hooks import compaction

    try:
        compaction.opened(hook)
    except Exception as error:
        log_failure(hook.target, hook.event, error)


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


def resume_delta(resumed: dict) -> str:
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
        lines += [hook_actions.clip(f"- [{e['kind']}] {e['message']}", 200) for e in news]
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
        return resumed["prompt"]
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


NOT_RECORDING = "vybe is not recording this session ({why}): the brief above is read-only."


def unrecorded(hook: Hook, why: str) -> str | None:
    """A hook of a session vybe does not record: nothing is written; the session's start
    gets the brief (read, not resumed: no cursor moves) and says once that recording is
    off, a status question gets the brief, every other event nothing."""
    if hook.event == "SessionStart":
        return f"{brief_prompt(hook)}\n\n{NOT_RECORDING.format(why=why)}"
    if hook.event == "UserPromptSubmit" and asks_for_status(hook.text("prompt")):
        return brief_prompt(hook)
    return None


def _prompt_row(hook: Hook, prompt: str) -> MessageRow:
    from vybe.context.labels import user_text
    from vybe.context.tokens import estimate
    from vybe.store import record as record_rows
    from vybe.store.record import MessageRow

    body = user_text("user", prompt)
    data = {"hook": hook.event, "prompt_id": hook.payload.get("prompt_id")}
    return MessageRow(
        hook.record_session,
        0,
        "user",
        body,
        source=record_rows.HOOK_SOURCE,
        data=data,
        tokens=estimate(body),
    )


def _log_prompt(store: Any, row: MessageRow, kept: dict[str, Any]) -> None:
    """The ``user_prompt`` event of a recorded prompt row (``kept``: who, where, what)."""
    hook_actions.log_event(
        store,
        kept["agent"],
        hook_actions.request_id(kept["target"], kept["session_id"], "UserPromptSubmit", row.seq),
        kind="user_prompt",
        message=kept["message"],
        project_id=kept["project_id"],
        metadata={"session_id": kept["session_id"], "record_seq": row.seq},
    )


def once_as(kept: dict[str, Any]) -> tuple[str, str] | None:
    """(agent, request id) a prompt row is written once by, when its hook call has one."""
    request_id = kept.get("request_id")
    return (kept["agent"], request_id) if request_id else None


def add_kept_prompts(hook: Hook) -> int:
    """Prompts an earlier hook could not write (the store was locked), added in order."""
    from vybe.integrations.hooks import prompt_spool

    return prompt_spool.drain(
        hook.store, hook.settings.location, lambda row, kept: _log_prompt(hook.store, row, kept)
    )


def user_prompt(hook: Hook) -> str | None:
    """Keep the prompt verbatim in the record and log it; only a status question gets the
    brief back (an ordinary prompt gets nothing added: no per-turn reminder).

    A store locked past the hook's wait, a server out of reach (restarting, say), or a
    clock vybe cannot record a time of (past year 9999), does not lose the prompt: it is
    kept on disk and added, in order, by the next hook that can write (all but the lock's
    wait go to hooks.log)."""
    from vybe import locks
    from vybe.errors import DatabaseLocked, DatabaseUnavailable, VybeError
    from vybe.integrations.hooks import prompt_spool
    from vybe.store import record as record_rows

    prompt = hook.text("prompt")
    if not prompt.strip():
        return None
    row = _prompt_row(hook, prompt)
    kept = {
        "target": hook.target,
        "agent": hook.agent,
        "session_id": hook.session_id,
        "project_id": os.path.abspath(hook.cwd),
        "message": hook_actions.clip(prompt, PROMPT_EVENT_CHARS),
    }
    once = hook.once()  # this call may run twice (the local service, then this process)
    if once is not None:
        kept["request_id"] = once[1]
    written = None
    try:
        add_kept_prompts(hook)
        catch_up(hook)
        # Claude's Stop hook imports the last reply: a prompt typed meanwhile waits for that
        # import (a little), so it lands after the reply it answers.
        with locks.exclusive(import_lock(hook.store), timeout=PROMPT_WAITS_FOR_IMPORT):
            written = record_rows.append_message(hook.store, row, once_as(kept))
        _log_prompt(hook.store, written, kept)
    except VybeError as error:
        kept_for_later = isinstance(error, DatabaseLocked | DatabaseUnavailable)
        if not kept_for_later and error.code != "CLOCK_OUT_OF_RANGE":
            raise
        if written is not None and once_as(kept) is None:
            raise  # the row is in: kept again, it would be added twice (no id replays it)
        # Kept with its request id, a row already written is replayed by the next hook, and
        # its event logged then.
        prompt_spool.keep(prompt_spool.place(hook.settings.location), row, kept)
        if not isinstance(error, DatabaseLocked):
            log_failure(hook.target, hook.event, error)
        return None
    return brief_prompt(hook) if asks_for_status(prompt) else None


def catch_up(hook: Hook) -> None:
    """Import the transcript first when the record's newest reply waits for its calls'
    results (a Stop found the file behind): the end of the last turn goes before what this
    hook writes. Otherwise nothing is read (the importers' modules cost a hook tens of ms).
    It waits a little for another import, and a failure costs only the order: the hook
    writes what it came for all the same (the next import brings the turn's end)."""

    try:
        if hook_actions.waits_for_results(hook.store, hook.record_session):
            import_since_hooks(hook, wait=PROMPT_WAITS_FOR_IMPORT)
    except Exception as error:
        log_failure(hook.target, hook.event, error)


def asks_for_status(prompt: str) -> bool:
    """A question about where things stand ("where are we?", "brief me", "what's next")."""
    folded = prompt.casefold()
    if not any(question in folded for question in STATUS_QUESTIONS):
        return False
    import re

    return re.search(STATUS_ASK, prompt) is not None


def _preview(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else jsonio.dumps(value, ensure_ascii=False, default=str)
    return hook_actions.clip(text, limit)


def tool_failure(hook: Hook, raw: Any, exit_code: int | None = None) -> str | None:
    """Log a failed tool call with bounded previews, for recovery context later (not one of
    a tool privacy.exclude_tools names)."""
    from vybe.config import excluded_tools

    if (hook.text("tool_name") or "tool") in excluded_tools():
        return None
    error = _preview(raw, ERROR_PREVIEW_CHARS)
    if exit_code is not None and not error.startswith("Exit code"):
        error = f"Exit code {exit_code}\n{error}"
    tool = hook.text("tool_name") or "tool"
    hook_actions.log_event(
        hook.store,
        hook.agent,
        hook_actions.request_id(hook.target, hook.session_id, hook.event, hook.payload),
        kind="tool_failure",
        message=f"{tool}: {error.splitlines()[0] if error else 'failed'}",
        project_id=os.path.abspath(hook.cwd),
        metadata={
            "session_id": hook.session_id,
            "tool_name": tool,
            "tool_use_id": hook.text("tool_use_id"),
            "input_preview": _preview(hook.payload.get("tool_input"), INPUT_PREVIEW_CHARS),
            "error_preview": error,
        },
    )
    return None


def import_since_hooks(hook: Hook, wait: float | None = None) -> SkipHooked | None:
    """The hook's transcript into its record session; None without a transcript, or while
    another import holds the lock (the next hook goes on from where the last import ended)."""
    from vybe.errors import DatabaseLocked
    from vybe.store.record import SqliteRecord

    add_kept_prompts(hook)
    path = hook.text("transcript_path")
    if not path or not os.path.isfile(path):
        return None
    from vybe.integrations.importers.by_agent import importer

    stamp, run, _ = importer(hook.target)
    from vybe.integrations.importers.transcript_import import Budget, import_skipping_hooked

    def bounded(record: Any, session_id: str, file: str) -> Any:
        return run(
            record, session_id, file, budget=Budget(IMPORT_BUDGET_BYTES, IMPORT_BUDGET_SECONDS)
        )

    try:
        imported = import_skipping_hooked(
            SqliteRecord(hook.store), hook.record_session, path, stamp, bounded, wait
        )
    except DatabaseLocked as busy:
        log_failure(hook.target, hook.event, busy)
        return None
    if imported.result.boundary is not None:  # flushed after SessionStart(compact) read
        from vybe.store import receipts

        before, after, at = imported.result.boundary
        receipts.note_tokens(hook.store, hook.record_session, hook.target, (before, after), at)
    return imported


def last_reply(hook: Hook) -> str | None:
    """The text of the record session's last assistant row."""

    return hook_actions.last_text(hook.store, hook.record_session, "assistant")


def keep_final_reply(hook: Hook, imported: SkipHooked | None) -> None:
    """The turn's final reply from the Stop payload, when the file did not hold it yet (the
    agent flushes its transcript late); a later import leaves out the file's copy. Under the
    import lock: two Stops of one turn keep it once.

    Not while the record's newest reply waits for its calls' results: those are in the
    file only, and the reply goes after them. The next hook's import (the next prompt, a
    compaction, the session's end) brings both, in the order they happened."""
    from vybe import locks
    from vybe.context.tokens import estimate
    from vybe.store import record as record_rows
    from vybe.store.record import MessageRow

    text = hook.text("last_assistant_message")
    if not text.strip() or (imported is not None and imported.last_reply == text):
        return
    if imported is not None and imported.result.more:
        return  # the file holds it: the import going on next hook brings it in its place
    with locks.exclusive(import_lock(hook.store), timeout=IMPORT_WAIT):
        if last_reply(hook) == text:
            return
        if hook_actions.waits_for_results(hook.store, hook.record_session):
            return
        source = record_rows.kept_reply_source(hook.target)
        row = MessageRow(
            hook.record_session, 0, "assistant", text, source=source, tokens=estimate(text)
        )
        record_rows.append_message(hook.store, row)


def maintain_if_due(hook: Hook) -> bool:
    """Start ``vybe maintain`` detached when the last run is older than MAINTAIN_EVERY, and
    forget the commit looks of sessions long gone. subprocess (with re, enum, locale,
    threading and selectors, a large part of a bare interpreter's start) is imported only
    then."""
    import time

    from vybe import config

    folder = config.config_dir()
    stamp = os.path.join(folder, MAINTAIN_STAMP)
    if os.path.exists(stamp) and time.time() - os.stat(stamp).st_mtime < MAINTAIN_EVERY_SECONDS:
        return False
    import subprocess
    import sys

    config.make_private_dir(folder)
    with open(stamp, "a", opener=config.private_opener):
        os.utime(stamp)
    from vybe.integrations.hooks import commits

    commits.forget_stale_looks(hook.settings.db_path)
    subprocess.Popen(
        [
            sys.executable,
            "-m",
            "vybe",
            "maintain",
            "--agent",
            hook.agent,
            *([] if hook.settings.db_url else ["--db-path", hook.settings.db_path]),
        ],
        # A server's URL goes by the environment, where no process listing shows a password.
        env={**os.environ, "VYBE_DB_URL": hook.settings.db_url} if hook.settings.db_url else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return True


def transcript_size(hook: Hook) -> int:
    try:
        return os.path.getsize(hook.text("transcript_path"))
    except OSError:
        return -1


def was_a_conversation(hook: Hook) -> bool:
    """Whether the record holds anything of this session (a prompt the hooks kept)."""

    return hook_actions.last_text(hook.store, hook.record_session, "user") is not None


def session_end(hook: Hook) -> str | None:
    """Note the end of the session (one small write, inside Claude's 1.5 s budget), and hand
    housekeeping to a detached process when it is due. Then the end of a last turn a Stop
    found unflushed is imported (``catch_up``).

    Each end of a resumed session is its own event: the request id names the transcript's
    size, which every run of the session grows (a retried hook still replays). An end with
    no transcript and nothing recorded was never a conversation (``claude mcp list`` fires
    SessionEnd too): nothing is logged."""
    size = transcript_size(hook)
    if size < 0 and not was_a_conversation(hook):
        return None
    hook_actions.log_event(
        hook.store,
        hook.agent,
        hook_actions.request_id(
            hook.target, hook.session_id, hook.event, hook.text("reason"), size
        ),
        kind="session_end",
        message=hook.text("reason") or "ended",
        project_id=os.path.abspath(hook.cwd),
        metadata={"session_id": hook.session_id},
    )
    if size >= 0:
        catch_up(hook)
    maintain_if_due(hook)
    return None


def note_commits(hook: Hook) -> int:
    """Log the commits made in the session's repository since its last hook looked (by the
    agent's shell tool or by hand); how many. A failure is logged, never the hook's."""
    from vybe.integrations.hooks import commits

    try:
        found, looked = commits.since_last_look(
            hook.settings.db_path, hook.record_session, hook.cwd
        )
        for commit in found:
            hook_actions.log_commit(
                hook.store,
                hook.agent,
                commit,
                project_id=os.path.abspath(hook.cwd),
                session_id=hook.session_id,
            )
        looked()
        return len(found)
    except Exception as error:
        log_failure(hook.target, hook.event, error)
        return 0


def watching_commits(handler: Any) -> Any:
    """The handler, then a look for new commits (its answer unchanged)."""

    def run(hook: Hook) -> str | None:
        answer = handler(hook)
        note_commits(hook)
        return answer

    run.__doc__ = handler.__doc__
    return run
