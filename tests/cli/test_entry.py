"""The executable exits with its code and its output whole, with or without teardown."""

from __future__ import annotations

import subprocess
import sys


def _leave(code: str) -> subprocess.CompletedProcess:
    script = f"from vybe.cli.entry import leave\n{code}"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


def test_leave_flushes_the_output_and_keeps_the_exit_code():
    done = _leave("import sys\nprint('x' * 100_000, end='')\nsys.stderr.write('e')\nleave(4)")
    assert (done.returncode, len(done.stdout), done.stderr) == (4, 100_000, "e")


def test_leave_runs_atexit_handlers_when_there_are_some():
    done = _leave("import atexit\natexit.register(print, 'bye')\nleave(3)")
    assert (done.returncode, done.stdout) == (3, "bye\n")


def test_leave_waits_for_another_thread():
    code = (
        "import threading, time\n"
        "threading.Thread(target=lambda: (time.sleep(0.2), print('done'))).start()\n"
        "leave(0)"
    )
    assert _leave(code).stdout == "done\n"
