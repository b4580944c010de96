"""The JSON envelope every command prints on stdout."""

from __future__ import annotations

import contextlib
import json
import os
import sys

from vybe import stdout
from vybe.errors import VybeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

SCHEMA_VERSION = "v1"
# The exit status when stdout could not take the result (docs/cli.md): sysexits' EX_IOERR.
UNPRINTED = 74


def _dump(payload: object) -> str:
    """Strict JSON: a NaN or Infinity that slipped through fails here, never reaches stdout."""
    if os.environ.get("VYBE_PRETTY_JSON"):
        return json.dumps(payload, indent=2, ensure_ascii=False, default=str, allow_nan=False)
    return _line(payload)


def _line(payload: object) -> str:
    """Strict JSON on one line (JSON Lines: never indented)."""
    return json.dumps(
        payload, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=False
    )


def success(data: object) -> str:
    return _dump({"schema_version": SCHEMA_VERSION, "success": True, "data": data})


def lines(data: JSONObject, listing: str) -> str:
    """``--jsonl``: each row of ``data[listing]`` on its own line, then one last line, the
    envelope of the rest of ``data`` (counts, cursor) naming the field and how many rows
    came before it."""
    rows = data[listing]
    rest = {k: v for k, v in data.items() if k != listing}
    last = {"schema_version": SCHEMA_VERSION, "success": True, "data": rest}
    rest["jsonl"] = {"field": listing, "lines": len(rows)}
    return "\n".join([*map(_line, rows), _line(last)])


def failure(error: VybeError) -> str:
    return _dump(
        {
            "schema_version": SCHEMA_VERSION,
            "success": False,
            "error": error.message,
            "error_code": error.code,
            "error_context": error.context,
            "suggested_action": error.suggested_action,
        }
    )


def emit(text: str) -> None:
    """One line on stdout, in UTF-8 (see ``write``)."""
    write(text + "\n")


def write(text: str) -> None:
    """Write UTF-8 whatever the locale; a lone surrogate becomes its JSON escape, not a crash.
    OSError or ValueError when stdout cannot take it (vybe.stdout)."""
    stdout.write(text.encode("utf-8", "backslashreplace"))


def unprinted(error: Exception, code: int, done: str | None) -> int:
    """Say on stderr, in one line, that the result was lost and what the command did (its
    exit ``code``; ``done``, the request id of the write it made); UNPRINTED."""
    if code != 0:
        did = f"the command failed (exit {code}) and its error was lost"
    elif done:
        did = f"the command was done: run it again with --request-id {done} for its result"
    else:
        did = "the command was done and changed nothing"
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(
            f"vybe: stdout could not take the result ({error}); {did}; exit {UNPRINTED}\n"
        )
        sys.stderr.flush()
    return UNPRINTED
