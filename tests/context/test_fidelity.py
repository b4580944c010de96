"""The fidelity table of docs/checkpoints.md is the one benchmarks/fidelity.py generates, and
through vybe proxy each of the five pinned clients keeps the mission, the correction, the
constraint and the exact references at every compaction it is scored at, each answered by
an accepted checkpoint (the proxy's rows of that table, generated here again).

`make test` generates the rows after 10 compactions (each session driven to 10) and holds
the doc's rows of that size to them; `make test-fidelity` (which CI runs) drives every
session to 50 and holds the whole table, as `make test-fleet` runs the fleet for longer."""

from __future__ import annotations

import os

import pytest
from benchmarks import fidelity

FULL = os.environ.get("VYBE_FIDELITY") == "full"
SIZES = fidelity.SIZES if FULL else fidelity.SIZES[:1]
CLIENTS = ("Claude Code", "Codex", "Gemini CLI", "OpenCode", "Aider")


@pytest.fixture(scope="module")
def rows() -> list[tuple[str, int, dict[str, object]]]:
    return fidelity.rows(SIZES)


def _written() -> list[str]:
    doc = fidelity.DOC.read_text(encoding="utf-8")
    table = doc[doc.index(fidelity.BEGIN) + len(fidelity.BEGIN) : doc.index(fidelity.END)]
    return table.strip().splitlines()


def test_the_doc_holds_the_table_the_benchmark_generates(rows):
    written, generated = _written(), fidelity.table(rows).splitlines()
    sized = [line for line in written[2:] if int(line.split(" | ")[1]) in SIZES]
    assert written[:2] + sized == generated, "run: python benchmarks/fidelity.py --write"
    assert {int(line.split(" | ")[1]) for line in written[2:]} == set(fidelity.SIZES)


def test_through_vybe_proxy_each_client_keeps_the_missions_and_the_constraint(rows):
    proxied = [(name, n, row) for name, n, row in rows if name.endswith("via vybe proxy")]
    clients = [(name.split(",")[0].rsplit(" ", 1)[0], n) for name, n, _ in proxied]
    assert clients == [(client, n) for n in SIZES for client in CLIENTS]
    for name, n, row in proxied:
        kept = (row["missions"], row["constraints"], row["references"])
        accepted, attempted = map(int, str(row["accepted"]).split("/"))
        assert kept == (1.0, 1.0, 1.0) and accepted == attempted >= n, name
