"""From a fresh clone to a first Claude Code prompt recorded by vybe, following only the
README: clone, install (the wheel's way: a fresh environment of its own, with the extras),
`vybe setup`, then the real Claude Code (the pinned one, from `make e2e`'s cache) answering
a first prompt through a fake model server on 127.0.0.1. Prints the time of each step.

    python e2e/first_prompt.py      (after `make e2e` has installed the CLIs once)

The install needs the package registry; the rest runs inside `unshare -n` as the e2e suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STEPS = "VYBE_FIRST_PROMPT_STEPS"


def timed(argv: list[str], **options: object) -> float:
    started = time.monotonic()
    subprocess.run(argv, check=True, capture_output=True, **options)  # type: ignore[call-overload]
    return time.monotonic() - started


def install(work: Path) -> dict[str, float]:
    """The clone and the install, outside the network namespace (the registry is needed)."""
    clone = work / "vybe"
    steps = {"clone": timed(["git", "clone", "--quiet", "--no-local", str(REPO), str(clone)])}
    tool = work / "tool"
    steps["install"] = timed([sys.executable, "-m", "venv", str(tool)]) + timed(
        [str(tool / "bin/python"), "-m", "pip", "install", "--quiet", f"{clone}[mcp,postgres]"]
    )
    return steps


def first_prompt(work: Path, steps: dict[str, float]) -> int:
    """vybe setup and the first prompt, inside the namespace: the times, and whether vybe
    recorded the prompt."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    os.environ["VYBE"] = str(work / "tool" / "bin" / "vybe")
    sys.path.insert(0, str(REPO / "e2e"))
    from clients import Claude
    from sandbox import Sandbox

    import fakes

    box = Sandbox("first-prompt", fakes.Anthropic(work / "server").start(), capture=False)
    claude = Claude(box)
    claude.onboarded()
    started = time.monotonic()
    done = box.vybe("setup", "--claude")  # `claude` is in the e2e cache, not on PATH
    steps["vybe setup"] = time.monotonic() - started
    started = time.monotonic()
    answer = claude.turn("Port the billing service to Go; never touch payments/.")
    steps["first prompt"] = time.monotonic() - started
    recorded = box.query("SELECT 1 FROM messages WHERE content_text LIKE 'Port the billing%'")
    for name, seconds in steps.items():
        print(f"{name:<14} {seconds:6.1f} s")
    print(f"{'total':<14} {sum(steps.values()):6.1f} s")
    ok = bool(done.get("success")) and bool(recorded)
    print("the first prompt is in vybe's record:", ok)
    if not ok:
        print(json.dumps(done)[:600], json.dumps(answer)[:600])
    return 0 if ok else 1


def main() -> int:
    if os.environ.get(STEPS):
        work, steps = Path(os.environ["VYBE_FIRST_PROMPT_WORK"]), json.loads(os.environ[STEPS])
        return first_prompt(work, steps)
    work = Path(tempfile.mkdtemp(prefix="vybe-first-", dir="/var/tmp"))
    steps = install(work)
    env = {**os.environ, STEPS: json.dumps(steps), "VYBE_FIRST_PROMPT_WORK": str(work)}
    return subprocess.run(["unshare", "-n", sys.executable, __file__], env=env).returncode


if __name__ == "__main__":
    raise SystemExit(main())
