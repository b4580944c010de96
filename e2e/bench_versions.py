"""Hook time inside a real session and MCP ``initialize``, on two Claude Code versions side by
side in one run: the pinned one (``E2E_CACHE``, ``make e2e``'s) and the newest
(``E2E_LATEST``, default ``.cache/e2e-latest``, ``make e2e-latest``'s).

Per version three arms of ``claude -p``, all six taken in turn round by round (a machine
that slows down weighs on each alike), each turn a new session:

- ``bare``: no hooks, no MCP server;
- ``hooks``: vybe's hooks as ``vybe hook install`` writes them (capture mode on, for each
  handler's own time);
- ``mcp``: no hooks, vybe's MCP server (``--mcp-config``) behind e2e/mcp_relay.py, which
  notes when Claude Code sent its first request (``initialize``; 2.1.332: ``server/discover``)
  and when vybe answered it, from the server's start; the fake server notes whether the
  turn's first model request offered vybe's core tools.

    python e2e/bench_versions.py [RUNS]      # default 10 of each
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import PYTHON, timed
from capture import version_of
from clients import Claude
from run import isolated
from sandbox import BIN, REPO, RUNS, VYBE, Sandbox

import fakes
from vybe.integrations.mcp.server import CORE

LATEST = Path(os.environ.get("E2E_LATEST") or REPO / ".cache" / "e2e-latest")
RELAY = str(Path(__file__).with_name("mcp_relay.py"))
ARMS = ("bare", "hooks", "mcp")


class Arm:
    """One arm of one version: its sandbox, fake server and client; what each turn showed."""

    def __init__(self, version: str, executable: Path, arm: str) -> None:
        name = f"bench-{version}-{arm}"
        server = fakes.Anthropic(RUNS / f"{name}-server").start()
        self.box = Sandbox(name, server, capture=arm == "hooks")
        self.claude, self.arm = Claude(self.box, executable=executable), arm
        self.extra: tuple[str, ...] = ()
        self.samples: list[tuple[float, float]] = []
        self.core_offered: list[bool] = []
        if arm == "hooks":
            self.box.vybe("hook", "install")
        if arm == "mcp":
            self.relay_log = self.box.root / "initialize.jsonl"
            self.extra = (f"--mcp-config={self.mcp_config()}",)

    def mcp_config(self) -> Path:
        command = [RELAY, str(self.relay_log), VYBE, "mcp", "--agent", "claude"]
        server = {"command": PYTHON, "args": command, "env": {"VYBE_DB_PATH": str(self.box.db)}}
        path = self.box.root / "mcp.json"
        path.write_text(json.dumps({"mcpServers": {"vybe": server}}))
        return path

    def turn(self, prompt: str) -> tuple[float, float]:
        before = len(self.box.server.log.entries)
        took = timed(self.claude, prompt, *self.extra)
        posts = [e for e in self.box.server.log.entries[before:] if e["method"] == "POST"]
        offered = {t.get("name") for t in (posts[0]["body"].get("tools") or [])} if posts else set()
        self.core_offered.append({f"mcp__vybe__{n}" for n in CORE} <= offered)
        return took

    def initialize(self) -> list[dict[str, Any]]:
        path = getattr(self, "relay_log", None)
        if path is None or not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line]


def versions() -> dict[str, Path]:
    """Each Claude Code by its version: the pinned one and the newest (when installed)."""
    found = {}
    for folder in (BIN, LATEST / "node_modules" / ".bin"):
        executable = folder / "claude"
        if executable.exists():
            shown = subprocess.run([str(executable), "--version"], capture_output=True, text=True)
            found[version_of(shown.stdout) or str(folder)] = executable
    return found


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(arms: dict[str, dict[str, Arm]], runs: int) -> None:
    names = list(arms)
    with open("/proc/loadavg") as handle:
        load = " ".join(handle.read().split()[:3])
    print(f"claude -p, median of {runs} alternating runs per arm; load average after: {load}")
    print(f"  {'':44}" + "".join(f"{v:>18}" for v in names))

    def row(label: str, cell: Any) -> None:
        print(f"  {label:44}" + "".join(f"{cell(arms[v]):>18}" for v in names))

    def wall(arm: Arm) -> float:
        return median([w for w, _ in arm.samples]) * 1000

    def cpu(arm: Arm) -> float:
        return median([c for _, c in arm.samples]) * 1000

    row("bare turn, wall / cpu ms", lambda a: f"{wall(a['bare']):.0f} / {cpu(a['bare']):.0f}")
    for arm in ("hooks", "mcp"):
        row(
            f"{arm}: added per turn, wall / cpu ms",
            lambda a, arm=arm: (
                f"{wall(a[arm]) - wall(a['bare']):+.0f} / {cpu(a[arm]) - cpu(a['bare']):+.0f}"
            ),
        )
    events = sorted({t["event"] for v in names for t in arms[v]["hooks"].box.hook_times()})
    for event in events:
        row(
            f"hook {event}: handler median ms",
            lambda a, event=event: _handler_ms(a["hooks"], event),
        )
    row("mcp: the client's first request", lambda a: ",".join(_methods(a["mcp"])) or "-")
    row("mcp: asked at, median ms from start", lambda a: _initialize_ms(a["mcp"], "asked_ms"))
    row("mcp: answered at, median ms", lambda a: _initialize_ms(a["mcp"], "answered_ms"))
    row("mcp: answered before the turn ended", lambda a: f"{len(a['mcp'].initialize())}/{runs + 1}")
    row(
        "mcp: 1st model request has core tools",
        lambda a: f"{sum(a['mcp'].core_offered)}/{len(a['mcp'].core_offered)}",
    )


def _handler_ms(arm: Arm, event: str) -> str:
    times = [t["ms"] for t in arm.box.hook_times() if t["event"] == event]
    return f"{median(times):.1f} ({len(times)})" if times else "-"


def _methods(arm: Arm) -> list[str]:
    return sorted({str(line.get("asked")) for line in arm.initialize()})


def _initialize_ms(arm: Arm, key: str) -> str:
    values = [line[key] for line in arm.initialize() if line.get(key) is not None]
    if not values:
        return "-"
    high = max(values)
    return f"{median(values):.0f} (max {high:.0f})"


def main(runs: int) -> int:
    isolated()
    found = versions()
    if len(found) < 2:
        print(f"need two Claude Code versions (make e2e, make e2e-latest); found {sorted(found)}")
        return 1
    arms = {v: {arm: Arm(v, executable, arm) for arm in ARMS} for v, executable in found.items()}
    every = [arm for by_arm in arms.values() for arm in by_arm.values()]
    for arm in every:
        arm.turn("warm up")
    for n in range(runs):
        for arm in every:
            arm.samples.append(arm.turn(f"turn {n}"))
    report(arms, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
