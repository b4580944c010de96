"""A command on a server store, run by the local service (vybe.cli.service), as the hooks
are: the command's process then loads neither psycopg nor argparse nor the declarations
(docs/architecture.md, the local service).

Only the commands that read nothing but their line and the store, and answer within
seconds, go there: not `chat`, `mcp`, `proxy`, `setup`, `hook`, `session` (which reads
transcript files), `maintain`, `store`, `doctor` (which looks at the service itself), nor
a line that reads stdin (``-``) or asks for help. A mutation's request id is fixed here
when the line names none (VYBE_REQUEST_ID, as a caller would set it): if the service fails
after its commit, the command run here replays it rather than doing it twice.
"""

from __future__ import annotations

import contextlib
import os
import sys

# The first words of the commands the service runs.
FORWARDED = frozenset(
    {
        "task",
        "done",
        "block",
        "note",
        "events",
        "artifacts",
        "push",
        "memory",
        "remember",
        "resume",
        "focus",
        "brief",
        "search",
        "project",
        "status",
    }
)
LOCAL_ONLY_TOKENS = frozenset({"-", "--help", "-h", "help"})


def forwardable(argv: list[str]) -> dict[str, str] | None:
    """The line's global flags when the service may run it; None otherwise."""
    from vybe.cli.flags import split_globals

    try:
        flags, rest = split_globals(argv)
    except Exception:  # a malformed flag: the CLI refuses it with its envelope
        return None
    if not rest or rest[0] not in FORWARDED or LOCAL_ONLY_TOKENS.intersection(rest):
        return None
    return flags


def by_service(argv: list[str]) -> int | None:
    """Run the command in the local service when the store is a server's: its envelope is
    printed and its exit code returned; None when it must run here."""
    flags = forwardable(argv)
    if flags is None:
        return None
    from vybe import config

    try:
        settings = config.load(flags.get("agent"), flags.get("db_path"), flags.get("db_url"))
    except Exception:  # the CLI says what is wrong with the config
        return None
    from vybe.integrations.hooks import service_link

    if settings.db_url is None or not service_link.enabled():
        return None
    if not flags.get("request_id") and not os.environ.get("VYBE_REQUEST_ID"):
        from vybe import clock

        os.environ["VYBE_REQUEST_ID"] = clock.new_id("req")  # here too, should it fail
    found = service_link.answer("cli", {"argv": argv})
    if not isinstance(found, list) or len(found) != 3:
        return None
    code, text, logged = found
    from vybe.cli import output

    if logged:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(str(logged))
    try:
        output.emit(str(text))
    except (OSError, ValueError) as exc:
        return output.unprinted(
            exc, int(code), flags.get("request_id") or os.environ.get("VYBE_REQUEST_ID")
        )
    return int(code)
