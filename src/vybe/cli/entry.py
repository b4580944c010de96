"""The `vybe` executable: hook calls and the status line go straight to their handler,
everything else to the CLI.

Kept tiny so that a hook, which runs on every prompt, and the status line, which Claude Code
runs after every message, import neither argparse nor the command registry. Both are
declared with the other commands (vybe.cli.hook: their help, `vybe schema`, docs/cli.md);
this path serves the lines agents run, global options included, and leaves the rest
(``--help``, an unknown target) to the CLI.
"""

from __future__ import annotations

import gc
import os
import sys

# The hook lines agents run, after ``hook run``: the target (claude when none is given).
HOOK_TARGETS: tuple[list[str], ...] = ([], ["claude"], ["codex"], ["gemini"])


def is_hook_line(rest: list[str]) -> bool:
    """``hook run [claude|codex|gemini]`` or ``statusline``, global flags taken out."""
    return rest == ["statusline"] or (rest[:2] == ["hook", "run"] and rest[2:] in HOOK_TARGETS)


def is_hook_attempt(argv: list[str]) -> bool:
    """A line meant as an agent's hook or status line (not a person asking for help)."""
    asked_help = "-h" in argv or "--help" in argv
    meant = "statusline" in argv or ("hook" in argv and "run" in argv[argv.index("hook") :])
    return meant and not asked_help


def hook_line(argv: list[str]) -> tuple[dict[str, str], list[str]] | None:
    """A line the hook path serves, as (global flags, the line without them); None for any
    other, and for one the CLI must judge (``--help``, an unknown target, a flag without
    its value)."""
    if is_hook_line(argv):  # the lines installed hooks run: nothing to take out
        return {}, argv
    if "hook" not in argv and "statusline" not in argv:
        return None
    from vybe.cli.flags import split_globals

    try:
        flags, rest = split_globals(argv)
    except Exception:  # a malformed flag: the CLI refuses it with its envelope
        return None
    return (flags, rest) if is_hook_line(rest) else None


def main(process_ends: bool = False) -> int:
    """``process_ends``: called by ``run``, which ends the process once this returns."""
    argv = sys.argv[1:]
    line = hook_line(argv)
    if line is None:
        code = None
        if process_ends:  # the executable: on a server store, the local service runs it
            from vybe.cli.remote import by_service

            code = by_service(argv)
        if code is None:
            from vybe.cli.main import main as cli_main

            code = cli_main(argv)
        # An agent takes a hook's exit 2 for "block": Claude Code erases the prompt of a
        # UserPromptSubmit that exits 2. A hook line the CLI refused exits 1, which agents
        # show and go on from: a mistyped line in settings never costs the person's words.
        return 1 if code == 2 and is_hook_attempt(argv) else code
    # A hook lives for a few dozen ms and makes few reference cycles: collecting them
    # during its module imports is work for nothing.
    # (A transcript import switches it off for its bulk work in any case.)
    gc.disable()
    flags, rest = line
    if flags:
        from vybe.cli.flags import as_hooks_read

        as_hooks_read(flags)
    if rest[0] == "hook":
        from vybe.cli.hook_run import run_handler

        return run_handler(rest[2:], process_ends)
    from vybe.integrations.hooks import statusline

    return statusline.run(process_ends)


def run() -> None:
    """The executable (bin/vybe, python -m vybe): ``main``; a hook then ``leave``s."""
    code = main(process_ends=True)
    if hook_line(sys.argv[1:]) is not None:
        leave(code)
    start_wanted_service()
    sys.exit(code)


def start_wanted_service() -> None:
    """The local service this process found missing, started now that its answer is out:
    its start (mostly imports) does not compete with the answer. Loaded only where the
    process asked for it (a server's store)."""
    link = sys.modules.get("vybe.integrations.hooks.service_link")
    if link is not None:
        link.start_wanted()


def leave(code: int) -> None:
    """Exit a hook (or the status line) with ``code``, skipping the interpreter's teardown
    when nothing is left for it (a private CPython interface, so only on the hook path,
    which needs it: the teardown is a large share of a hook's time against its budget,
    benchmarks/hooks.py).

    Freeing every module and object at exit changes nothing the OS does not do: the store
    is closed and the output written by then. The teardown still runs when it could matter:
    an atexit handler, another thread, a failed flush."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None when the descriptor was closed at start-up
                stream.flush()
    except (OSError, ValueError):
        sys.exit(code)
    start_wanted_service()
    if _nothing_at_exit():
        os._exit(code)
    sys.exit(code)


def _nothing_at_exit() -> bool:
    import atexit  # built in: no file to load

    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    count = getattr(atexit, "_ncallbacks", None)  # CPython's; elsewhere, tear down
    return count is not None and count() == 0
