"""Every text column of the schema is either scrubbed on every write or kept on purpose
(vybe.store.scrubbed): a new column cannot be forgotten. And the rules are gitleaks' own:
regenerated from the vendored config they come out as they are in the package."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from vybe.privacy import generate
from vybe.store.db import SqliteStore
from vybe.store.scrubbed import JSON, KEPT, SCRUBBED

ROOT = Path(__file__).parents[2]


def text_columns(path: Path) -> set[tuple[str, str]]:
    SqliteStore(str(path)).migrate()
    conn = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not name.startswith(("search_", "sqlite_"))  # filled from the rows below
        ]
        return {
            (table, column)
            for table in tables
            for _, column, kind, *_ in conn.execute(f"PRAGMA table_info('{table}')")
            if "TEXT" in kind.upper()
        }
    finally:
        conn.close()


@pytest.mark.sqlite_only("reads the SQLite schema; test_schemas_agree holds PostgreSQL's to it")
def test_every_text_column_is_scrubbed_or_kept_on_purpose(tmp_path):
    declared = {(t, c) for group in (SCRUBBED, KEPT) for t, cs in group.items() for c in cs}
    assert text_columns(tmp_path / "v.db") - declared == set()
    both = {(t, c) for t, cs in SCRUBBED.items() for c in cs} & {
        (t, c) for t, cs in KEPT.items() for c in cs
    }
    assert both == set()
    assert JSON - {(t, c) for t, cs in SCRUBBED.items() for c in cs} == set()


def test_the_rules_are_regenerated_unchanged_from_gitleaks_config(tmp_path):
    generate.main(str(ROOT / "tests" / "fixtures" / "gitleaks" / "gitleaks.toml"), str(tmp_path))
    for name in ("rules.py", "keywords.py"):
        assert (tmp_path / name).read_text() == (ROOT / "src/vybe/privacy" / name).read_text()
