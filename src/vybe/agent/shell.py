"""The bash tool: runs only with the person's permission, with a timeout and a cut output."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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


def run(workdir: Path, command: str, timeout: object = DEFAULT_TIMEOUT) -> tuple[str, bool]:
    """The command's output and exit status; True when it failed."""
    seconds = min(max(int(timeout or DEFAULT_TIMEOUT), 1), MAX_TIMEOUT)
    try:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=workdir,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=seconds,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        partial = (exc.stdout or "") if isinstance(exc.stdout, str) else ""
        return cut_output(partial) + f"\n[timed out after {seconds} s]", True
    output = done.stdout + (("\n" + done.stderr) if done.stderr else "")
    text = cut_output(output.strip("\n"), "narrow the command to see the rest")
    return f"{text}\n[exit status {done.returncode}]".lstrip("\n"), done.returncode != 0
