"""UserPromptSubmit: the person's prompt kept verbatim in the record, a status question
answered with the brief."""

from __future__ import annotations

from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import Hook, import_lock, log_failure
from vybe.integrations.hooks.session_start import brief_prompt
from vybe.integrations.hooks.transcript import (
    PROMPT_WAITS_FOR_IMPORT,
    add_kept_prompts,
    catch_up,
    log_prompt,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.store.record import MessageRow


PROMPT_EVENT_CHARS = 500

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


def once_as(kept: dict[str, Any]) -> tuple[str, str] | None:
    """(agent, request id) a prompt row is written once by, when its hook call has one."""
    request_id = kept.get("request_id")
    return (kept["agent"], request_id) if request_id else None


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
        "project_id": hook.project,
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
            written = record_rows.append_message(hook.store, row, once_as(kept), hook.origin)
        log_prompt(hook.store, written, kept)
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


def asks_for_status(prompt: str) -> bool:
    """A question about where things stand ("where are we?", "brief me", "what's next")."""
    folded = prompt.casefold()
    if not any(question in folded for question in STATUS_QUESTIONS):
        return False
    import re

    return re.search(STATUS_ASK, prompt) is not None
