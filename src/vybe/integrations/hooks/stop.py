"""Stop: the turn's final reply kept from the payload when the agent's file does not hold it
yet (each agent's Stop imports its file first)."""

from __future__ import annotations

from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import IMPORT_WAIT, Hook, import_lock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.integrations.importers.transcript_import import SkipHooked


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
        record_rows.append_message(hook.store, row, origin=hook.origin)
