"""What vybe's hooks add to a headless Claude Code turn: ``claude -p`` with and without them,
alternating, and each hook's own time (capture mode) in the same runs.

    python e2e/bench.py [RUNS]      # default 15 of each
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clients import Claude
from run import isolated
from sandbox import RUNS, Sandbox

import fakes


def timed(claude: Claude, prompt: str) -> float:
    started = time.monotonic()
    claude.turn(prompt)
    return time.monotonic() - started


def main(runs: int) -> None:
    isolated()
    server = fakes.Anthropic(RUNS / "bench-server").start()
    bare = Claude(Sandbox("bench-bare", server, capture=False))
    hooked_box = Sandbox("bench-hooked", server)
    hooked = Claude(hooked_box)
    hooked_box.vybe("hook", "install")
    timed(bare, "warm up"), timed(hooked, "warm up")
    without, with_ = [], []
    for n in range(runs):
        without.append(timed(bare, f"turn {n}"))
        with_.append(timed(hooked, f"turn {n}"))
    a, b = statistics.median(without), statistics.median(with_)
    print(f"claude -p, median of {runs} alternating runs: without hooks {a * 1000:.0f} ms,")
    print(f"  with vybe's hooks {b * 1000:.0f} ms: added {(b - a) * 1000:.0f} ms per headless turn")
    per_event = defaultdict(list)
    for line in hooked_box.hook_times():
        per_event[line["event"]].append(line["ms"])
    for event, times in sorted(per_event.items()):
        print(f"  {event}: handler median {statistics.median(times):.1f} ms over {len(times)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
