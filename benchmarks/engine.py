"""Checkpoint engine costs on sessions of real shape, at 1k / 10k / 100k messages.

Run standalone: ``python benchmarks/engine.py [messages ...]``. Prints figures; it is not a test.

Real shape: a typed message, five tool rounds (a call and its output), a reply; repeated.
A third of the typed messages state a constraint (so the MEMO keeps growing candidates), the
rest say "continue". The session is written to a SQLite record, then ``vybe session replay``'s
own function runs it through the engine at a 32k window with the scripted consolidator, so
checkpoints come every few turns. Figures, each over the whole replay:

- per request: ``prepare`` when no checkpoint was taken (assembly, estimate, anchor);
- per checkpoint: the engine's own work in a ``prepare`` that took one, model time removed;
- replay: time per source row, everything included (model, SQLite writes).

Every figure is this process's CPU time (``time.process_time``), not wall time: the machine is
shared, and a busy neighbour would otherwise show up as engine cost.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from vybe.agent.offline import Consolidator
from vybe.agent.replay import replay
from vybe.context.budget import ModelLimits
from vybe.context.engine import Engine
from vybe.context.record import Record
from vybe.context.recorder import record_assistant, record_tool, record_user
from vybe.llm.base import Reply, Request, ToolCall, Watch
from vybe.store import SqliteStore
from vybe.store.record import SqliteRecord

SOURCE = "shape"
LIMITS = ModelLimits(window=32_000)
TOOL_ROUNDS = 5
OUTPUT = "def handler(event):\n    return route(event)\n" * 30  # about 330 tokens
SIZES = (1_000, 10_000, 100_000)


def real_shape(record: Record, messages: int, output: str = OUTPUT) -> None:
    """Typed message, five tool rounds, reply; repeated until ``messages`` rows are written."""
    turn = written = 0
    while written < messages:
        text = (
            f"Please take ticket T-{turn} next; never deploy on a Friday."
            if turn % 3 == 0
            else "continue"
        )
        record_user(record, SOURCE, text)
        for r in range(TOOL_ROUNDS):
            call = ToolCall(f"c{turn}_{r}", "read", {"path": f"src/svc{turn % 40}/handler.py"})
            record_assistant(record, SOURCE, Reply("", (call,), "tool_use"))
            record_tool(record, SOURCE, call, f"# src/svc{turn % 40}/handler.py\n{output}")
        record_assistant(record, SOURCE, Reply(f"Ticket T-{turn}: done, tests pass."))
        written += 2 + 2 * TOOL_ROUNDS
        turn += 1


class Timed:
    """A model that adds up the time spent inside it."""

    def __init__(self, model) -> None:
        self.model, self.name, self.seconds = model, model.name, 0.0

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        start = time.process_time()
        try:
            return self.model.complete(request, watch)
        finally:
            self.seconds += time.process_time() - start


class TimedEngine:
    """The engine, with the time of each ``prepare`` sorted into requests and checkpoints."""

    def __init__(self, engine: Engine, model: Timed) -> None:
        self.engine, self.model = engine, model
        self.requests: list[float] = []
        self.checkpoints: list[float] = []

    def __getattr__(self, name: str):
        return getattr(self.engine, name)

    def prepare(self, *args, **kwargs):
        model_before, start = self.model.seconds, time.process_time()
        prepared = self.engine.prepare(*args, **kwargs)
        took = time.process_time() - start - (self.model.seconds - model_before)
        (self.checkpoints if prepared.attempts else self.requests).append(took)
        return prepared


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def replayed(messages: int, output: str = OUTPUT) -> tuple[dict, TimedEngine, Timed, float]:
    """A fresh real-shape session replayed: the report, the timed engine and model, and the
    replay's CPU seconds."""
    folder = Path(tempfile.mkdtemp())
    store = SqliteStore(folder / "bench.db")
    record = SqliteRecord(store)
    real_shape(record, messages, output)
    model = Timed(Consolidator())
    engine = TimedEngine(Engine(record, model, LIMITS), model)
    start = time.process_time()
    report = replay(engine, SOURCE, folder)
    wall = time.process_time() - start
    store.close()
    return report, engine, model, wall


def measure(messages: int) -> None:
    report, engine, model, wall = replayed(messages)
    stopped = report["stopped"]["code"] if report["stopped"] else "reached the end"
    tail = engine.requests[-max(len(engine.requests) // 10, 1) :]
    print(
        f"{report['rows']:>7} rows: {stopped}; {report['accepted']} checkpoints accepted of"
        f" {len(report['checkpoints'])}; last request {report['tokens']} tokens"
        f" (threshold {report['threshold']})"
    )
    print(
        f"          per request: median {ms(statistics.median(engine.requests))},"
        f" last tenth median {ms(statistics.median(tail))}, max {ms(max(engine.requests))}"
    )
    if engine.checkpoints:
        print(
            f"          per checkpoint (model time removed): median"
            f" {ms(statistics.median(engine.checkpoints))}, max {ms(max(engine.checkpoints))}"
        )
    print(
        f"          replay: {wall:.1f} s CPU, {wall / report['rows'] * 1e3:.2f} ms per row,"
        f" model (scripted) {model.seconds:.1f} s"
    )


if __name__ == "__main__":
    print(f"real-shape sessions, SQLite record, window {LIMITS.window}:")
    for size in [int(a) for a in sys.argv[1:]] or SIZES:
        measure(size)
