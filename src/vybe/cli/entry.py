"""The `vybe` executable: hook calls go straight to their handler, everything else to the CLI.

Kept tiny so that a hook, which runs on every prompt, imports neither argparse nor the
command registry.
"""

from __future__ import annotations

import sys


def main() -> int:
    argv = sys.argv[1:]
    if argv[:2] == ["hook", "run"]:
        from vybe.cli.hook_run import run_handler

        return run_handler(argv[2:])
    from vybe.cli.main import main as cli_main

    return cli_main(argv)
