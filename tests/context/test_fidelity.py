"""The fidelity table of docs/checkpoints.md is the one benchmarks/fidelity.py generates, and
through vybe proxy each of the five pinned clients keeps the mission, the correction, the
constraint and the exact references at every compaction it is scored at, each answered by
an accepted checkpoint (the proxy's rows of that table, generated here again)."""

from __future__ import annotations

import pytest
from benchmarks import fidelity


@pytest.fixture(scope="module")
def rows() -> list[tuple[str, int, dict[str, object]]]:
    return fidelity.rows()


def test_the_doc_holds_the_table_the_benchmark_generates(rows):
    doc = fidelity.DOC.read_text(encoding="utf-8")
    written = doc[doc.index(fidelity.BEGIN) + len(fidelity.BEGIN) : doc.index(fidelity.END)]
    assert written.strip() == fidelity.table(rows), "run: python benchmarks/fidelity.py --write"


def test_through_vybe_proxy_each_client_keeps_the_missions_and_the_constraint(rows):
    proxied = [(name, n, row) for name, n, row in rows if name.endswith("via vybe proxy")]
    clients = [(name.split(",")[0].rsplit(" ", 1)[0], n) for name, n, _ in proxied]
    assert clients == [
        (client, n)
        for n in fidelity.SIZES
        for client in ("Claude Code", "Codex", "Gemini CLI", "OpenCode", "Aider")
    ]
    for name, n, row in proxied:
        kept = (row["missions"], row["constraints"], row["references"])
        accepted, attempted = map(int, str(row["accepted"]).split("/"))
        assert kept == (1.0, 1.0, 1.0) and accepted == attempted >= n, name
