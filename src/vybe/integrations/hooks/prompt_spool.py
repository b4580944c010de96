"""Prompts that could not reach the store, kept on disk until the next hook adds them.

A person's words are never dropped: when the store stays locked past the hook's wait, or a
server's store cannot be reached, the prompt row goes to ``<db>-pending/<ns>-<pid>.json``
(written whole, then renamed in place), and the next hook of any session adds every kept
prompt to the record, oldest first, before its own write. Standard library only: this runs
on the prompt path.
"""

from __future__ import annotations

import os
import time

from vybe import config, jsonio
from vybe.text import to_os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.store.record import MessageRow


def place(location: str) -> str:
    """Where the kept prompts of the store at ``location`` wait, on this machine: beside a
    SQLite file; for a server's store (one that may be out of reach), beside the lock
    files this machine keeps for it."""
    from vybe.config import is_url

    if not is_url(location):
        return location
    from vybe.locks import machine_file

    return machine_file(location, "prompts")


def folder(db_path: str) -> str:
    return to_os(f"{db_path}-pending")  # a UTF-8 store path under an ASCII locale too


def keep(db_path: str, row: MessageRow, event: dict[str, Any]) -> str:
    """Write one prompt row and its event durably, scrubbed as the store would keep them (no
    private span, no secret on disk); the file's path."""
    from vybe import privacy

    where = folder(db_path)
    os.makedirs(where, mode=0o700, exist_ok=True)
    name = f"{time.time_ns():020d}-{os.getpid()}.json"
    document = {
        "session_id": row.session_id,
        "type": row.type,
        "text": row.text,
        "source": row.source,
        "data": row.data,
        "tokens": row.tokens,
        "event": event,
    }
    scrubbed = privacy.scrub_value(document)
    config.write_whole(os.path.join(where, name), jsonio.dumps(scrubbed, ensure_ascii=False))
    return os.path.join(where, name)


def pending(db_path: str) -> list[str]:
    """Kept prompt files, oldest first (one listdir when there are none: the usual case)."""
    try:
        names = os.listdir(folder(db_path))
    except FileNotFoundError:
        return []
    return [os.path.join(folder(db_path), n) for n in sorted(names) if n.endswith(".json")]


def drain(store: Any, location: str, log_event: Any) -> int:
    """Add every kept prompt of the store at ``location`` to the record in order, then
    forget its file; how many. Hooks that drain at once add each prompt once (the ledger,
    by the prompt's request id), in the files' order."""
    from vybe.store import record as record_rows
    from vybe.store.record import MessageRow, Origin

    added = 0
    for path in pending(place(location)):
        try:
            with open(path, encoding="utf-8") as handle:
                kept = jsonio.loads(handle.read())
        except FileNotFoundError:
            continue  # another hook added it meanwhile
        row = MessageRow(
            kept["session_id"],
            0,
            kept["type"],
            kept["text"],
            source=kept["source"],
            data=kept["data"],
            tokens=kept["tokens"],
        )
        # Once, however many hooks add it at the same time (and its hook's call, which may
        # have run twice, by that call's id).
        event = kept["event"]
        request_id = event.get("request_id") or f"hook_spool_{os.path.basename(path)}"
        origin = Origin(event["agent"], event.get("project_id"))
        stored = record_rows.append_message(store, row, (event["agent"], request_id), origin)
        log_event(stored, event)
        try:  # noqa: SIM105 (contextlib is kept off the hook path)
            os.unlink(path)
        except FileNotFoundError:
            pass  # another hook added it too, and forgot it first
        added += 1
    return added
