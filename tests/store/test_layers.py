"""All SQL lives in vybe.store: no other package runs a statement."""

from __future__ import annotations

import re
from pathlib import Path

import vybe

SOURCE = Path(vybe.__file__).parent
RUNS_SQL = re.compile(r"\.execute(many|script)?\(")


def test_only_the_store_runs_sql():
    outside = [
        str(path.relative_to(SOURCE))
        for path in SOURCE.rglob("*.py")
        if path.parent.name != "store" and RUNS_SQL.search(path.read_text(encoding="utf-8"))
    ]
    assert outside == []
