"""The executable exits with its code and its output whole, with or without teardown."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from tests.conftest import VYBE


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


@pytest.mark.parametrize("closed", ["2>&-", ">&-"])
def test_a_hook_exits_0_when_an_output_descriptor_was_closed_at_start_up(vybe, closed):
    payload = shlex.quote(json.dumps({"hook_event_name": "SessionStart", "source": "startup"}))
    line = f"echo {payload} | {shlex.quote(VYBE)} hook run claude {closed}"
    assert subprocess.run(["sh", "-c", line], env=vybe.env).returncode == 0


def test_a_command_keeps_its_exit_code_when_stderr_was_closed_at_start_up(vybe):
    line = f"{shlex.quote(VYBE)} status >/dev/null 2>&-"
    assert subprocess.run(["sh", "-c", line], env=vybe.env).returncode == 0
