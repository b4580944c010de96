"""What vybe's hooks add to a headless Claude Code turn, and where it goes.

Four arms of ``claude -p``, taken in turn round by round (a machine that slows down weighs
on each alike), all with the settings ``vybe hook install`` writes except the first:

- ``bare``: no hooks at all;
- ``true``: the same hooks (events, matchers, timeouts, status line) running ``true``:
  what Claude Code itself spends per hook (a shell and a process, the wait);
- ``python``: the same hooks running ``python -c "import sqlite3"`` with vybe's interpreter:
  the interpreter's start on top;
- ``vybe``: vybe's hooks (capture mode on, for each handler's own time).

The floor (``python -c "import sqlite3"`` on its own) is timed in the same rounds.

    python e2e/bench.py [RUNS]      # default 15 of each
"""

from __future__ import annotations

import json
import resource
import shlex
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clients import Claude
from run import isolated
from sandbox import RUNS, VYBE, Sandbox

import fakes

PYTHON = str(Path(VYBE).with_name("python"))
FLOOR = [PYTHON, "-c", "import sqlite3"]


def timed(claude: Claude, prompt: str, *extra: str) -> tuple[float, float]:
    """Wall time and CPU time (Claude Code and every hook process it waited for) of a turn
    (``extra``: options of ``claude``): on a loaded machine the CPU time still says what
    each arm costs."""
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    claude.turn(prompt, None, *extra)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime


def floor_ms() -> float:
    started = time.monotonic()
    subprocess.run(FLOOR, check=True)
    return (time.monotonic() - started) * 1000


def with_command(box: Sandbox, command: str) -> None:
    """vybe's Claude settings in ``box``, every handler (and the status line) running
    ``command`` instead."""
    box.vybe("hook", "install")
    path = box.home / ".claude" / "settings.json"
    settings = json.loads(path.read_text())
    for groups in settings["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                handler["command"] = command
    settings["statusLine"]["command"] = command
    path.write_text(json.dumps(settings, indent=2))


def arms(server: fakes.Anthropic) -> tuple[dict[str, Claude], Sandbox]:
    bare = Claude(Sandbox("bench-bare", server, capture=False))
    noop = Claude(Sandbox("bench-true", server, capture=False))
    with_command(noop.box, "true")
    python = Claude(Sandbox("bench-python", server, capture=False))
    with_command(python.box, shlex.join(FLOOR))
    hooked_box = Sandbox("bench-vybe", server)
    hooked_box.vybe("hook", "install")
    return {"bare": bare, "true": noop, "python": python, "vybe": Claude(hooked_box)}, hooked_box


def report(samples: dict[str, list], floor: list[float], hooked_box: Sandbox) -> None:
    runs = len(floor)
    wall = {
        name: statistics.median(w for w, _ in values) * 1000 for name, values in samples.items()
    }
    cpu = {name: statistics.median(c for _, c in values) * 1000 for name, values in samples.items()}
    events = Counter(line["event"] for line in hooked_box.hook_times())
    per_turn = sum(events.values()) / (runs + 1)  # the warm-up turn fired them too
    with open("/proc/loadavg") as handle:
        load = " ".join(handle.read().split()[:3])
    print(f"claude -p, median of {runs} alternating runs (hook processes per turn: {per_turn:g});")
    print(f"load average after: {load}")
    for name in samples:
        print(
            f"  {name:7} wall {wall[name]:6.0f} ms ({wall[name] - wall['bare']:+5.0f})"
            f"   cpu {cpu[name]:6.0f} ms ({cpu[name] - cpu['bare']:+5.0f})"
        )
    print(f"  floor (python -c 'import sqlite3'): {statistics.median(floor):.1f} ms")
    print("added per headless turn, split (wall, cpu):")
    parts = [
        ("Claude Code running hooks (true - bare)", "true", "bare"),
        ("the interpreter's start (python - true)", "python", "true"),
        ("vybe's own work (vybe - python)", "vybe", "python"),
        ("in all (vybe - bare)", "vybe", "bare"),
    ]
    for label, arm, base in parts:
        print(f"  {label:40} {wall[arm] - wall[base]:5.0f} ms  {cpu[arm] - cpu[base]:5.0f} ms")
    per_event = defaultdict(list)
    for line in hooked_box.hook_times():
        per_event[line["event"]].append(line["ms"])
    for event, times in sorted(per_event.items()):
        print(f"  {event}: handler median {statistics.median(times):.1f} ms over {len(times)}")


def main(runs: int) -> None:
    isolated()
    server = fakes.Anthropic(RUNS / "bench-server").start()
    clients, hooked_box = arms(server)
    for claude in clients.values():
        timed(claude, "warm up")
    samples: dict[str, list] = {name: [] for name in clients}
    floor = []
    for n in range(runs):
        for name, claude in clients.items():
            samples[name].append(timed(claude, f"turn {n}"))
        floor.append(floor_ms())
    report(samples, floor, hooked_box)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
