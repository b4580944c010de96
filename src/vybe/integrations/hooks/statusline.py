"""``vybe statusline``: one line for Claude Code's ``statusLine`` command setting.

Claude Code runs the command after each new assistant message (at most every 300 ms) with
the session's JSON on stdin (``session_id``, ``transcript_path``, ``cwd``, ``workspace``,
``model``, …) and shows the first line it prints. The line: the agent's focus task (when it
has one), the session's compactions so far (vybe's and Claude's), how many of the person's
messages the last one kept whole (given back verbatim, or left in the context) of all they
had typed, how many it cut, and how many they have typed since.

It only reads, imports only the standard library (as the hooks do), and always prints a
line: a missing store or a bad payload shows ``vybe`` alone, never an error.
"""

from __future__ import annotations

import os

from vybe import config, jsonio, stdout
from vybe.errors import acting
from vybe.text import shorten, to_os

TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from typing import Any

MAX_INPUT_BYTES = 1024 * 1024
BUSY_TIMEOUT_MS = 200  # a status line that waits is worse than one skipped
TITLE_CHARS = 40
SEPARATOR = " · "


def _payload(raw: bytes) -> dict[str, Any]:
    try:
        payload = jsonio.loads(raw[:MAX_INPUT_BYTES].decode("utf-8", "replace"))
    except ValueError:
        return {}
    return payload if isinstance(payload, dict) else {}


def _focus(conn: Any, agent: str) -> list[str]:
    """The focus task's title, or nothing in a session that uses no tasks."""
    from vybe.store import agents as agent_rows
    from vybe.store import tasks as task_rows

    state = agent_rows.get(conn, agent)
    task = task_rows.get(conn, state["focus_task_id"]) if state and state["focus_task_id"] else None
    return [shorten(task["title"], TITLE_CHARS)] if task else []


def _compactions(conn: Any, session_id: str) -> list[str]:
    from vybe.store import receipts

    count = receipts.compactions(conn, session_id)
    if not count:
        typed = receipts.typed_messages(conn, session_id)
        return ["no compaction yet", f"{typed} of your messages in the record"]
    parts = [f"{count} compaction{'s' if count != 1 else ''}"]
    last = receipts.last_receipt(conn, session_id)
    if last is not None:
        whole = {s for name in ("verbatim", "kept") for s in last[name]}
        cut = set(last["cut"]) - whole
        typed = receipts.typed_then(conn, session_id, last)  # not only those it lists
        kept = f"{len(whole)}/{typed} of your words kept"
        parts.append(kept + (f", {len(cut)} cut" if cut else ""))
        since = receipts.typed_messages(conn, session_id) - typed
        if since > 0:
            parts.append(f"{since} typed since")
    return parts


def line(raw: bytes, process_ends: bool = False) -> str:
    """The status line for one payload; ``process_ends``: the store is left to the process's
    end (``Store.close_at_exit``: no checkpoint of the hooks' WAL on every status line),
    and a server's store is read by the local service when one answers."""
    payload = _payload(raw)
    try:
        settings = config.load(os.environ.get("VYBE_AGENT") or "claude")
        if settings.db_url is None and not os.path.exists(to_os(settings.db_path)):
            return "vybe"
        if settings.db_url is not None and process_ends:
            answered = by_service(raw)
            if answered is not None:
                return answered
        from vybe.store import open_store

        store = open_store(settings.location, BUSY_TIMEOUT_MS, create=False)
    except Exception:
        return "vybe"
    try:
        session = payload.get("session_id")
        with store.snapshot() as conn:
            parts = ["vybe", *_focus(conn, acting(settings.agent))]
            if isinstance(session, str) and session:
                parts += _compactions(conn, f"claude:{session}")
        return SEPARATOR.join(parts)
    except Exception:
        return "vybe"
    finally:
        if process_ends:
            store.close_at_exit()
        else:
            store.close()


def by_service(raw: bytes) -> str | None:
    """The line as the local service reads it (vybe.cli.service), or None."""
    from vybe.integrations.hooks import service_link

    if not service_link.enabled():
        return None
    return service_link.text_answer("statusline", {"raw": raw.decode("utf-8", "replace")})


def run(process_ends: bool = False) -> int:
    """Read the payload, print the line; exit 0 whatever happens."""
    import sys

    try:
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    except (AttributeError, OSError, ValueError):
        raw = b""
    try:  # UTF-8 bytes whatever the locale: under LC_ALL=C its "·" could not be encoded
        stdout.write((line(raw, process_ends) + "\n").encode("utf-8"))
    except stdout.Lost:  # Claude Code stopped reading: nothing to tell it
        return 0
    return 0
