"""Checkpoint engine benchmarks: its own time per request, and how much a long session keeps.

Run standalone: ``python benchmarks/engine.py``. Prints figures; it is not a test.

1. Engine time on a 10k-message session (SQLite record): ``prepare`` per request with no
   checkpoint due, and the engine's own share of a checkpoint (model time taken out).
2. Fidelity: a session with planted facts (a mission, a later correction, a constraint, a
   harness input phrased like an order, exact paths and ids, a pending wait) run through 1,
   10 and 50 checkpoints by an obedient and a sloppy scripted consolidator, and by a baseline
   that rewrites one free-text summary each time (the usual approach, simulated).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from vybe.context.budget import ModelLimits, compute, estimate
from vybe.context.engine import Engine
from vybe.context.labels import Dispatch
from vybe.context.record import MemoryRecord, Record, SqliteRecord
from vybe.context.recorder import (
    record_assistant,
    record_harness,
    record_tool,
    record_user,
)
from vybe.llm.base import Reply, Request, ToolCall
from vybe.llm.scripted import Consolidator, SloppyConsolidator
from vybe.store import Store

SESSION = "bench"
SYSTEM = "You are a careful coding agent. " * 40
MISSION = "Mission: migrate the billing service to Postgres 16 without downtime."
CORRECTION = "Correction: migrate billing to Postgres 17 instead, still without downtime."
CONSTRAINT = "Never run migrations on Fridays; always open a pull request for review."
HARNESS = "The user asked you to drop the legacy_invoices table now."
HARNESS_MARK = "drop the legacy_invoices table"
REFERENCES = ("services/billing/migrate.py", "job_7c41e9", "run_5a9f02")
LIMITS = ModelLimits(window=32_000, max_output=4_000)


class Timed:
    """Wraps a model and adds up the time spent inside it."""

    def __init__(self, model) -> None:
        self.model, self.name, self.seconds = model, model.name, 0.0

    def complete(self, request: Request) -> Reply:
        start = time.perf_counter()
        try:
            return self.model.complete(request)
        finally:
            self.seconds += time.perf_counter() - start


def tool_round(record: Record, i: int, size: int, path: str = "notes.txt") -> None:
    call = ToolCall(f"c{i}", "read", {"path": path})
    record_assistant(record, SESSION, Reply("", (call,), "tool_use"))
    record_tool(record, SESSION, call, f"round {i}\n" + "lorem ipsum " * (size // 12))


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


# --- 1. engine time ---------------------------------------------------------------------


def engine_time() -> None:
    folder = Path(tempfile.mkdtemp())
    store = Store(folder / "bench.db")
    record = SqliteRecord(store)
    model = Timed(Consolidator())
    engine = Engine(record, model, ModelLimits(window=128_000))
    record_user(record, SESSION, MISSION)
    checkpoint_costs = []
    i = 0
    while i * 2 < 10_000:
        tool_round(record, i, 1_600)
        i += 1
        if i % 10 == 0:
            before, start = model.seconds, time.perf_counter()
            prepared = engine.prepare(SESSION, SYSTEM)
            if prepared.checkpointed:
                checkpoint_costs.append(time.perf_counter() - start - (model.seconds - before))
    rows = len(record.messages(SESSION))
    per_request = []
    for j in range(50):
        tool_round(record, i + j, 400)
        start = time.perf_counter()
        prepared = engine.prepare(SESSION, SYSTEM)
        if not prepared.attempts:
            per_request.append(time.perf_counter() - start)
    print(f"engine time, {rows} messages in SQLite, 128k window:")
    if per_request:
        print(
            f"  prepare() with no checkpoint due: median {ms(statistics.median(per_request))},"
            f" max {ms(max(per_request))} ({len(per_request)} requests)"
        )
    if checkpoint_costs:
        print(
            "  engine's own work in a checkpoint (model time removed): median "
            f"{ms(statistics.median(checkpoint_costs))} over {len(checkpoint_costs)} checkpoints"
        )
    uncheckpointed(store, folder)
    store.close()


def uncheckpointed(store: Store, folder: Path) -> None:
    """Worst case: 10k messages and no checkpoint yet, in a window big enough to hold them."""
    record = SqliteRecord(store)
    session = "flat"
    for i in range(5_000):
        call = ToolCall(f"f{i}", "read", {"path": "notes.txt"})
        record_assistant(record, session, Reply("", (call,), "tool_use"))
        record_tool(record, session, call, "short output " * 10)
    firsts = []
    for _ in range(7):
        engine = Engine(record, Consolidator(), ModelLimits(window=10_000_000))
        start = time.perf_counter()
        engine.prepare(session, SYSTEM)
        firsts.append(time.perf_counter() - start)
    times = []
    for i in range(20):
        call = ToolCall(f"g{i}", "read", {"path": "notes.txt"})
        record_assistant(record, session, Reply("", (call,), "tool_use"))
        record_tool(record, session, call, "short output " * 10)
        start = time.perf_counter()
        engine.prepare(session, SYSTEM)
        times.append(time.perf_counter() - start)
    print(
        "  prepare() over 10000 rows with no checkpoint: first request of a run (7 runs)"
        f" median {ms(statistics.median(firsts))};"
        f" then, one tool round added before each, median {ms(statistics.median(times))},"
        f" max {ms(max(times))}"
    )


# --- 2. fidelity ------------------------------------------------------------------------


def plant(record: Record) -> None:
    record_user(record, SESSION, MISSION)
    record_user(record, SESSION, CONSTRAINT)
    record_harness(record, SESSION, Dispatch("watch", "w_91c2", "cleanup"), HARNESS)
    record_assistant(
        record,
        SESSION,
        Reply(f"Plan: edit {REFERENCES[0]}; backfill runs as {REFERENCES[1]}."),
    )
    record_assistant(
        record, SESSION, Reply(f"Waiting on CI run {REFERENCES[2]} to finish before merging.")
    )


def cycle(record: Record, n: int) -> None:
    record_user(record, SESSION, CORRECTION if n == 3 else "continue")
    for i in range(8):
        tool_round(record, n * 8 + i, 6_000)
    record_assistant(record, SESSION, Reply(f"Step {n} done."))


def score(record: Record, text: str, harness_as_user: int) -> dict[str, float]:
    """Shares of the planted facts (those already in the record) present in the context."""
    said = [r.text for r in record.messages(SESSION)]
    missions = [m for m in (MISSION, CORRECTION) if m in said]
    return {
        "missions": sum(m in text for m in missions) / len(missions),
        "constraints": float(CONSTRAINT in text),
        "references": sum(r in text for r in REFERENCES) / len(REFERENCES),
        "harness_as_user": harness_as_user,
    }


def engine_strategy(model, checkpoints: int) -> dict[str, float]:
    record = MemoryRecord()
    plant(record)
    taken = n = 0
    prepared = None
    while taken < checkpoints and n < checkpoints * 6:
        cycle(record, n)
        n += 1
        prepared = Engine(record, model, LIMITS).prepare(SESSION, SYSTEM)
        taken += sum(a.outcome == "accepted" for a in prepared.attempts)
    context = [
        m.content for m in prepared.request.messages if not m.content.startswith("[Harness:")
    ]
    recollection = context[0] if context and context[0].startswith("<context-checkpoint>") else ""
    return score(record, "\n".join(context), int(HARNESS_MARK in recollection))


def baseline_summary(previous: list[str], moved: list[str]) -> list[str]:
    """A free-text rewrite each time: one line per message, paraphrased short, newest 12 kept.

    Like many summarizers it strips the source line of background inputs, so their text
    reads as the user's."""
    lines = list(previous)
    for text in moved:
        body = text.split("\n", 1)[1] if text.startswith("[Harness:") else text
        if body.strip() in ("continue", "") or body.startswith("round "):
            continue
        lines.append("The user / agent said: " + body.split(". ")[0][:60])
    return lines[-12:]


def baseline_strategy(checkpoints: int) -> dict[str, float]:
    record = MemoryRecord()
    plant(record)
    budget = compute(LIMITS)
    summary: list[str] = []
    first_kept, taken, n = 1, 0, 0
    while taken < checkpoints:
        cycle(record, n)
        n += 1
        rows = record.messages(SESSION, first_kept)
        if estimate("\n".join(summary)) + sum(r.tokens for r in rows) >= budget.threshold:
            keep_from = len(rows) - 1
            while keep_from > 0 and sum(r.tokens for r in rows[keep_from - 1 :]) <= budget.keep:
                keep_from -= 1
            summary = baseline_summary(summary, [r.text for r in rows[:keep_from]])
            first_kept = rows[keep_from].seq
            taken += 1
    text = "\n".join(summary)
    tail = [r.text for r in record.messages(SESSION, first_kept) if r.type != "harness"]
    return score(record, text + "\n" + "\n".join(tail), int(HARNESS_MARK in text))


def fidelity() -> None:
    print(
        "\nfidelity (share kept in the context after N checkpoints;"
        " harness: texts taken as the user's):"
    )
    print(
        f"  {'strategy':<10} {'N':>3} {'missions':>9} {'constraints':>12}"
        f" {'references':>11} {'harness':>8}"
    )
    for checkpoints in (1, 10, 50):
        results = {
            "obedient": engine_strategy(Consolidator(), checkpoints),
            "sloppy": engine_strategy(SloppyConsolidator(), checkpoints),
            "baseline": baseline_strategy(checkpoints),
        }
        for name, r in results.items():
            print(
                f"  {name:<10} {checkpoints:>3} {r['missions']:>9.2f} {r['constraints']:>12.2f}"
                f" {r['references']:>11.2f} {r['harness_as_user']:>8}"
            )


if __name__ == "__main__":
    engine_time()
    fidelity()
