"""`vybe session replay --scripted` at 2,000 and 12,000 rows: where the time goes.

Run standalone: ``python benchmarks/replay.py [rows ...]``. Prints figures; it is not a test.

The session is of real shape (benchmarks/engine.py's: a typed message, five tool rounds, a
reply), each tool output 1,600 characters of what tools print: a test run's rows of dots, a
rule of dashes, a coverage table of paths, code. ``session replay``'s own function runs it
through the engine at a 32k window with the offline consolidator (the model of
``--scripted``). Figures are this process's CPU time (``time.process_time``), split into the
consolidator's (inside the model) and the rest (engine, record, replay); the last line is
how the 12,000-row replay compares with the 2,000-row one. Then the consolidator's reference
scan alone, over 32k tokens of tool outputs each holding one long run of [\\w./-] (a rule of
dashes, dotted names), against the one regex it stands for (offline.REFERENCE).
"""

from __future__ import annotations

import sys
import time

from engine import LIMITS, replayed  # benchmarks/engine.py

from vybe.agent.offline import REFERENCE, references_in

SIZES = (2_000, 12_000)
OUTPUT = (
    "$ python -m pytest -q tests/billing\n"
    + ("." * 72 + " [ 40%]\n") * 6
    + "-" * 30
    + " coverage: platform linux, python 3.12.3 "
    + "-" * 30
    + "\n"
    + "".join(f"src/billing/module_{i}.py      120      4    97%\n" for i in range(12))
    + "def handler(event):\n    return route(event)\n" * 12
)[:1600]


def measure(rows: int) -> tuple[float, float]:
    """One replay of a fresh session of ``rows`` rows: its total and its model's CPU seconds."""
    report, engine, model, total = replayed(rows, OUTPUT)
    rest = total - model.seconds
    print(
        f"{report['rows']:>7} rows, {len(report['checkpoints'])} checkpoints: {total:.1f} s CPU"
        f" ({total / report['rows'] * 1e3:.2f} ms a row); consolidator {model.seconds:.1f} s"
        f" ({model.seconds / total:.0%}), engine and record {rest:.1f} s"
        f" ({engine.checkpoints and sum(engine.checkpoints) / len(engine.checkpoints) * 1e3:.1f}"
        " ms a checkpoint's prepare, model time removed)"
    )
    return total, model.seconds


LONG_RUNS = {"a rule of dashes": "-" * 1_600, "dotted names": "pkg.mod-v1." * 145}


def scan(outputs: list[str]) -> tuple[float, float]:
    """CPU seconds of references_in over ``outputs``, and of REFERENCE's own matches."""
    start = time.process_time()
    for text in outputs:
        references_in(text)
    linear = time.process_time() - start
    start = time.process_time()
    for text in outputs:
        list(REFERENCE.finditer(text))
    return linear, time.process_time() - start


if __name__ == "__main__":
    print(f"session replay --scripted, window {LIMITS.window}, tool outputs {len(OUTPUT)} chars:")
    sizes = [int(a) for a in sys.argv[1:]] or list(SIZES)
    totals = [measure(rows)[0] for rows in sizes]
    if len(sizes) > 1:
        print(
            f"{sizes[-1]:,} rows against {sizes[0]:,}: {totals[-1] / totals[0]:.1f}x the time"
            f" for {sizes[-1] / sizes[0]:.0f}x the rows"
        )
    for name, run in LONG_RUNS.items():
        outputs = [f"# src/svc{i}/handler.py\n{run[:1_600]}" for i in range(80)]
        linear, regex = scan(outputs)
        print(
            f"references in 80 outputs of {name}: {linear * 1e3:.1f} ms"
            f" (the one regex: {regex * 1e3:.0f} ms)"
        )
