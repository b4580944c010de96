"""``make e2e``: drive the real Claude Code, Codex, Aider, Gemini CLI and OpenCode against fake
model servers.

Runs inside a private network namespace (``unshare -n``, only loopback up): nothing but
127.0.0.1 can be reached, and no API key is needed. Prints PASS/FAIL per check and a
summary line; exits 1 when a check failed.

    python e2e/run.py [SCENARIO ...]          # all scenarios, or the named ones
    python e2e/run.py --capture               # also refresh the unit tests' payload fixtures
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scenarios
from aider import AIDER
from capture import refresh_fixtures, version_of
from checks import Checks
from sandbox import BIN

NETNS_MARK = "VYBE_E2E_NETNS"


def isolated() -> None:
    """Re-run this script inside a network namespace with only loopback, once."""
    if os.environ.get(NETNS_MARK):
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        return
    argv = ["unshare", "-n", sys.executable, *sys.argv]
    # CI as a CI machine sets it, here too: a client that inherits it behaves otherwise (Ink
    # draws nothing), so every run proves the sandboxes hand the clients only their own.
    os.execvpe("unshare", argv, {**os.environ, NETNS_MARK: "1", "CI": "true"})


def main(argv: list[str]) -> int:
    capture = "--capture" in argv
    names = [a for a in argv if not a.startswith("--")] or list(scenarios.ALL)
    for path in (BIN / "claude", BIN / "codex", BIN / "gemini", BIN / "opencode", AIDER):
        if not path.exists():
            print(f"FAIL setup: {path} is missing (make e2e installs it)")
            return 1
    isolated()
    shown_by_path = (("aider", AIDER), ("gemini", BIN / "gemini"), ("opencode", BIN / "opencode"))
    for name, path in shown_by_path:
        shown = subprocess.run([str(path), "--version"], capture_output=True, text=True)
        print(f"{name}: {shown.stdout.strip()}", flush=True)
    versions = {}
    for tool in ("claude", "codex"):
        shown = subprocess.run([str(BIN / tool), "--version"], capture_output=True, text=True)
        print(f"{tool}: {shown.stdout.strip()}", flush=True)
        versions[tool] = version_of(shown.stdout)
    checks = Checks()
    started = time.monotonic()
    boxes = []
    for name in names:
        print(f"== {name}", flush=True)
        scenario_started = time.monotonic()
        try:
            boxes.append(scenarios.ALL[name](checks))
        except Exception:
            checks.fail(f"{name}: scenario ran to the end", traceback.format_exc(limit=4))
        print(f"   ({time.monotonic() - scenario_started:.1f} s)", flush=True)
    if capture:
        print(refresh_fixtures([b for b in boxes if b is not None], versions))
    return checks.summary(time.monotonic() - started)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
