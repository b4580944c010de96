"""`make bench`: each benchmarks/*.py in its own process (not this one, not the _ modules)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve()
    failed = []
    for script in sorted(p for p in here.parent.glob("*.py") if p != here and p.name[0] != "_"):
        print(f"== {script.name} ==", flush=True)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(script)], check=False)
        took = time.perf_counter() - started
        print(f"== {script.name}: exit {done.returncode}, {took:.0f}s ==\n")
        if done.returncode != 0:
            failed.append(script.name)
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
