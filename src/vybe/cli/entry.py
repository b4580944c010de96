"""The `vybe` executable: hook calls and the status line go straight to their handler,
everything else to the CLI.

Kept tiny so that a hook, which runs on every prompt, and the status line, which Claude Code
runs after every message, import neither argparse nor the command registry.
"""

from __future__ import annotations

import gc
import os
import sys


def main(process_ends: bool = False) -> int:
    """``process_ends``: called by ``run``, which ends the process once this returns."""
    argv = sys.argv[1:]
    if argv[:2] == ["hook", "run"] or argv == ["statusline"]:
        # A hook lives for a few dozen ms and makes few reference cycles: collecting them
        # cost a session start about 4M instructions of 119M (3.4%) in module imports alone.
        # (A transcript import switches it off for its bulk work in any case.)
        gc.disable()
    if argv[:2] == ["hook", "run"]:
        from vybe.cli.hook_run import run_handler

        return run_handler(argv[2:], process_ends)
    if argv == ["statusline"]:
        from vybe.integrations import statusline

        return statusline.run(process_ends)
    from vybe.cli.main import main as cli_main

    return cli_main(argv)


def run() -> None:
    """The executable (bin/vybe, python -m vybe): ``main``; a hook then ``leave``s."""
    code = main(process_ends=True)
    if sys.argv[1:3] == ["hook", "run"] or sys.argv[1:] == ["statusline"]:
        leave(code)
    sys.exit(code)


def leave(code: int) -> None:
    """Exit a hook (or the status line) with ``code``, skipping the interpreter's teardown
    when nothing is left for it (a private CPython interface, so only on the hook path,
    which needs it: without
    it a UserPromptSubmit hook took 2.00x a bare `python -c "import sqlite3"` instead of
    1.65x, in CPU time, in one interleaved run).

    Freeing every module and object at exit changes nothing the OS does not do: the store
    is closed and the output written by then. The teardown still runs when it could matter:
    an atexit handler, another thread, a failed flush."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None when the descriptor was closed at start-up
                stream.flush()
    except (OSError, ValueError):
        sys.exit(code)
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
