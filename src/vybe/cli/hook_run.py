"""``vybe hook run <target>``: the agent's event on stdin, its answer on stdout, always exit 0.

This speaks the agent's hook protocol, not the JSON envelope; the agent and the database
come from VYBE_AGENT / VYBE_DB_URL / VYBE_DB_PATH / the config file (the agent defaults to the
target), which the global flags of the line (``vybe --agent x hook run claude``) set first
(vybe.cli.flags.as_hooks_read).
"""

from __future__ import annotations

import sys

TARGETS = ("claude", "codex")


def run_handler(argv: list[str], process_ends: bool = False) -> int:
    """``process_ends``: the executable ends the process once this returns."""
    try:
        from vybe.integrations import hooks

        target = argv[0] if argv and argv[0] in TARGETS else "claude"
        raw = sys.stdin.buffer.read(hooks.MAX_INPUT_BYTES + 1)
        answer = hooks.run(target, raw, process_ends)
        if answer:  # UTF-8 whatever the locale (its encoding could not write a brief's "é")
            sys.stdout.flush()
            sys.stdout.buffer.write((answer + "\n").encode("utf-8", "backslashreplace"))
            sys.stdout.flush()
    except BaseException as error:  # a hook must never block or break the agent
        from vybe.integrations.hooks import log_failure

        log_failure("?", "?", error)
    return 0
