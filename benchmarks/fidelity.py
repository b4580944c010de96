"""The fidelity table of docs/checkpoints.md: what each consolidator of the zoo keeps.

Run: ``python benchmarks/fidelity.py`` prints the table; ``--write`` also puts it into
docs/checkpoints.md between its markers. Deterministic: re-running gives the same table.

Every consolidator of tests/context/zoo.py runs the same real-shape session (a mission said
once, a correction at turn 3, a constraint, a harness input phrased like an order, exact paths
and ids, then typed messages with five tool rounds each) in a 32k window until 10 or 50
checkpoints were attempted. The baseline rewrites one free-text summary each time instead
(the usual approach, simulated: a paraphrase of each message, the newest 12 lines kept, the
source line of background inputs stripped). Columns: shares of the planted missions,
constraint and exact references present in the next request; whether the harness order reads
as the user's in it; checkpoints accepted of those attempted; the next request's tokens.

Then each of the five pinned clients (benchmarks/_clients.py): the same session in its wire
shape, compacted by the client by its own rule, scored on what it keeps after 10 and 50
compactions (one session for both sizes, as for the zoo), once with the simulated summariser
answering its compaction ("own summary") and once through a real vybe proxy answering it
with vybe's checkpoint. The proxy runs take most of the time.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT), str(ROOT / "benchmarks")]

import _clients  # noqa: E402
from tests.context import zoo  # noqa: E402

from vybe.context.budget import compute, estimate  # noqa: E402
from vybe.context.protocol import HARNESS_PREFIX, RECOLLECTION_OPEN  # noqa: E402
from vybe.context.record import MemoryRecord  # noqa: E402

DOC = ROOT / "docs" / "checkpoints.md"
BEGIN, END = "<!-- fidelity table: begin -->", "<!-- fidelity table: end -->"
SIZES = (10, 50)
CLIENTS = (_clients.Claude, _clients.Codex, _clients.Gemini, _clients.OpenCode, _clients.Aider)
# The first line of a background input: vybe's label, or Claude Code's reminder tag.
SOURCE_LINES = (HARNESS_PREFIX, "<system-reminder>")


def score(said: list[str], context: str, harness_as_user: bool) -> dict[str, object]:
    """Shares of the planted facts (those already said) present in the context."""
    missions = [m for m in (zoo.MISSION, zoo.CORRECTION) if m in said]
    return {
        "missions": sum(m in context for m in missions) / len(missions),
        "constraints": float(zoo.CONSTRAINT in context),
        "references": sum(r in context for r in zoo.REFERENCES) / len(zoo.REFERENCES),
        "harness": "yes" if harness_as_user else "no",
    }


def engine_row(run: zoo.Run) -> dict[str, object]:
    messages = run.last.request.messages
    context = "\n".join(m.content for m in messages if not m.content.startswith(HARNESS_PREFIX))
    first = messages[0].content if messages else ""
    recollection = first if first.startswith(RECOLLECTION_OPEN) else ""
    row = score(run.said, context, zoo.HARNESS_MARK in recollection)
    return {**row, "accepted": f"{run.accepted}/{run.attempts}", "tokens": run.last.tokens}


def baseline_summary(previous: list[str], moved: list[str]) -> list[str]:
    """The simulated free-text summariser: the previous summary's lines, then the first
    sentence of each message since (its first 60 characters, a background input's source
    line left out), the newest 12 lines kept."""
    lines = list(previous)
    for text in moved:
        body = text.split("\n", 1)[1] if text.startswith(SOURCE_LINES) else text
        if body.strip() in ("continue", "") or body.startswith("# services/"):
            continue
        lines.append("The user / agent said: " + body.split(". ")[0].split("\n")[0][:60])
    return lines[-12:]


def baseline_row(checkpoints: int) -> dict[str, object]:
    record = MemoryRecord()
    zoo.plant(record)
    budget = compute(zoo.LIMITS)
    summary: list[str] = []
    first_kept = taken = n = 0

    class Rewriter:
        """Stands in for the engine: rewrites the summary when the threshold is reached."""

        def new_run(self) -> None:
            pass

        def prepare(self, session, system):
            nonlocal summary, first_kept, taken
            rows = record.messages(zoo.S, first_kept)
            size = estimate("\n".join(summary)) + sum(r.tokens for r in rows)
            if size >= budget.threshold:
                keep_from = len(rows) - 1
                while keep_from > 0 and sum(r.tokens for r in rows[keep_from - 1 :]) <= budget.keep:
                    keep_from -= 1
                summary = baseline_summary(summary, [r.text for r in rows[:keep_from]])
                first_kept, taken = rows[keep_from].seq, taken + 1
            return _Sized(size)

    while taken < checkpoints:
        zoo.turn(record, Rewriter(), n, lambda prepared: None)
        n += 1
    text = "\n".join(summary)
    tail = [r.text for r in record.messages(zoo.S, first_kept) if r.type != "harness"]
    context = text + "\n" + "\n".join(tail)
    said = [r.text for r in record.messages(zoo.S)]
    tokens = estimate(context) + estimate(zoo.SYSTEM)
    row = score(said, context, zoo.HARNESS_MARK in text)
    return {**row, "accepted": f"{taken}/{taken}", "tokens": tokens}


class _Sized:
    """What the session driver reads of a prepared request."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens


def client_rows(sizes: tuple[int, ...]) -> dict[int, list[tuple[str, dict[str, object]]]]:
    """Each pinned client's rows at each size: its own compaction (the simulated summariser
    in place of its model), and the same session through vybe proxy."""
    rows: dict[int, list[tuple[str, dict[str, object]]]] = {n: [] for n in sizes}
    for client in CLIENTS:
        for through_proxy in (False, True):
            made = client()
            how = "via vybe proxy" if through_proxy else "own summary (simulated model)"
            name = f"{made.name} {made.version}, {how}"
            kept_at = _clients.compactions(made, sizes, baseline_summary, through_proxy)
            for n, kept in kept_at.items():
                row = score(kept.said, kept.text, zoo.HARNESS_MARK in kept.text)
                rows[n].append((name, {**row, "accepted": kept.accepted, "tokens": kept.tokens}))
    return rows


def rows(sizes: tuple[int, ...] = SIZES) -> list[tuple[str, int, dict[str, object]]]:
    """Every row of the table at ``sizes`` (a leading part of ``SIZES``: each session is
    driven to the largest, and what it kept at a size does not depend on what came after):
    (name, checkpoints, its figures)."""
    clients = client_rows(sizes)
    driven = [(m.name, zoo.drives(m, sizes)) for m in zoo.zoo()]  # one session for all sizes
    found = []
    for checkpoints in sizes:
        named = [(name, engine_row(runs[checkpoints])) for name, runs in driven]
        named.append(("free-text rewrite (baseline)", baseline_row(checkpoints)))
        found += [(name, checkpoints, r) for name, r in [*named, *clients[checkpoints]]]
    return found


def table(found: list[tuple[str, int, dict[str, object]]]) -> str:
    head = (
        "| consolidator | checkpoints | missions kept | constraint kept | exact references kept"
        " | harness as user | accepted | tokens after |\n|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for name, checkpoints, r in found:
        lines.append(
            f"| {name} | {checkpoints} | {r['missions']:.2f} | {r['constraints']:.2f}"
            f" | {r['references']:.2f} | {r['harness']} | {r['accepted']} | {r['tokens']} |"
        )
    return "\n".join(lines)


def write(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    DOC.write_text(doc[:start] + "\n" + text + "\n" + doc[end:], encoding="utf-8")


if __name__ == "__main__":
    result = table(rows())
    print(result)
    if "--write" in sys.argv[1:]:
        write(result)
