"""What every benchmark here shares."""

from __future__ import annotations

import compileall
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import vybe

WARM_UP = 3


def compile_vybe() -> None:
    """Time vybe as installed, with bytecode: under PYTHONDONTWRITEBYTECODE every run would
    compile each module from source again (about 10 ms a run here)."""
    compileall.compile_dir(Path(vybe.__file__).parent, quiet=1)


class Run(NamedTuple):
    """One command to time: its argv and environment, what it reads on stdin, and what to do
    (untimed) before each run."""

    argv: list[str]
    env: dict[str, str]
    stdin: bytes = b""
    before: Callable[[], None] | None = None


def interleaved(runs: dict[str, Run], rounds: int) -> dict[str, float]:
    """Median wall time of each command in ms, the commands taken in turn round by round, so
    a machine that speeds up or slows down weighs on every command alike."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds + WARM_UP):
        for name, run in runs.items():
            if run.before:
                run.before()
            start = time.perf_counter()
            done = subprocess.run(run.argv, input=run.stdin, env=run.env, capture_output=True)
            samples[name].append((time.perf_counter() - start) * 1000)
            if done.returncode != 0:
                raise SystemExit(f"{run.argv} failed: {done.stdout[:300]!r} {done.stderr[-300:]!r}")
    return {name: statistics.median(values[WARM_UP:]) for name, values in samples.items()}


def instructions(runs: dict[str, Run]) -> dict[str, int] | None:
    """The instructions each command executes, counted once under valgrind's callgrind: the
    same count in every run whatever the machine's load, where wall times need a quiet
    machine (the ratios track each other: 2.00x in instructions was 1.93-2.15x in wall time).
    None when valgrind is not installed. Waits on the disk (fsync) are not instructions."""
    import re
    import shutil

    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    counts = {}
    for name, run in runs.items():
        if run.before:
            run.before()
        command = [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *run.argv]
        done = subprocess.run(command, input=run.stdin, env=run.env, capture_output=True)
        found = re.search(rb"refs:\s*([\d,]+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"{run.argv} failed under valgrind: {done.stderr[-300:]!r}")
        counts[name] = int(found.group(1).replace(b",", b""))
    return counts


def report_hook_errors(config_dir: Path) -> None:
    """Print what hooks.log holds: a benchmark of hooks that failed measured nothing."""
    log = config_dir / "hooks.log"
    if log.exists():
        print("hook errors were logged:\n" + log.read_text()[:2000])


def at_once(threads: list[threading.Thread]) -> float:
    """Start the threads together and wait for them all: the seconds that took."""
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started
