"""What the events' handlers share: the agent's own transcript brought into the record since
the last import, the prompts an earlier hook kept on disk added first, and the catch-up that
puts the end of the last turn before what a hook writes."""

from __future__ import annotations

import os

from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import Hook, log_failure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.integrations.importers.transcript_import import SkipHooked
    from vybe.store.record import MessageRow


PROMPT_WAITS_FOR_IMPORT = 1.0  # seconds a prompt waits for a running transcript import

# What one hook's import may read: a first import of a long session goes on next hook,
# well inside the hook's timeout.
IMPORT_BUDGET_BYTES = 4 * 1024 * 1024

IMPORT_BUDGET_SECONDS = 2.0


def log_prompt(store: Any, row: MessageRow, kept: dict[str, Any]) -> None:
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


def add_kept_prompts(hook: Hook) -> int:
    """Prompts an earlier hook could not write (the store was locked), added in order."""
    from vybe.integrations.hooks import prompt_spool

    return prompt_spool.drain(
        hook.store, hook.settings.location, lambda row, kept: log_prompt(hook.store, row, kept)
    )


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
            SqliteRecord(hook.store, hook.origin), hook.record_session, path, stamp, bounded, wait
        )
    except DatabaseLocked as busy:
        log_failure(hook.target, hook.event, busy)
        return None
    if imported.result.boundary is not None:  # flushed after SessionStart(compact) read
        from vybe.store import receipts

        before, after, at = imported.result.boundary
        receipts.note_tokens(hook.store, hook.record_session, hook.target, (before, after), at)
    return imported
