"""vybe store copy: a SQLite store built by the benchmarks' helpers, moved onto the server
and compared row by row; a second copy moves nothing; the server goes on from the file's ids."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.conftest import Vybe
from vybe.store import SqliteStore
from vybe.store.copy import TABLES, _columns

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _benchmark_builder():
    sys.path.insert(0, str(BENCHMARKS))  # the helpers import their _common module
    try:
        spec = importlib.util.spec_from_file_location("bench_resume", BENCHMARKS / "resume.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module.build


@pytest.fixture
def on_file(tmp_path) -> Vybe:
    """A SQLite store of 5k events, 1k memories and 200 tasks, then real commands on it."""
    local = Vybe(tmp_path / "file")
    _benchmark_builder()(local.db_path, events=5000, memories=1000, tasks=200)
    task = local.ok("task", "create", "--title", "made by the CLI", "--request-id", "made")
    local.ok("note", task["task"]["id"], "a note", "--request-id", "noted", agent="alice")
    local.ok("resume", "--request-id", "resumed", agent="alice")
    return local


def _rows(conn, table: str, columns: list[str], order: str) -> list[tuple]:
    return [
        tuple(r) for r in conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")
    ]


def test_a_copied_store_matches_the_file_row_by_row_and_a_second_copy_moves_nothing(on_file, vybe):
    first = on_file.ok("store", "copy", "--to", vybe.url)
    assert first["tables"]["events"]["copied"] == on_file.event_count() == 5000 + 2
    assert first["already_there"] == 0
    source = SqliteStore(on_file.db_path)
    target = vybe._store()._live()
    for table, order in TABLES:
        columns = _columns(source, table)
        assert _rows(source.conn, table, columns, order) == _rows(target, table, columns, order), (
            table
        )
    again = on_file.ok("store", "copy", "--to", vybe.url)
    assert again["copied"] == 0 and again["already_there"] == first["copied"]
    source.close()


def test_the_server_goes_on_from_the_files_ids_and_request_ids(on_file, vybe):
    on_file.ok("store", "copy", "--to", vybe.url)
    newest = on_file.sql("SELECT MAX(id) FROM events")[0][0]
    task = vybe.ok("task", "create", "--title", "on the server")
    assert task["event_id"] == newest + 1
    replay = vybe.ok("task", "create", "--title", "made by the CLI", "--request-id", "made")
    assert replay["task"]["title"] == "made by the CLI" and replay["event_id"] < newest
    assert vybe("task", "create", "--title", "other", "--request-id", "made").error_code == (
        "IDEMPOTENCY_MISMATCH"
    )


def _found(vybe: Vybe, query: str) -> list[tuple]:
    hits = vybe.ok("search", query, "--limit", "1000")["hits"]
    return sorted((h["source"], h.get("session_id"), h.get("seq"), h.get("event_id")) for h in hits)


def test_a_copied_store_is_searched_on_the_server_as_on_the_file(on_file, vybe):
    on_file.ok("session", "say", "s1", "migrate the billing tables; keep /srv/app/ledger.py")
    on_file.ok("store", "copy", "--to", vybe.url)
    for query in ("billing", "/srv/app/ledger.py", "note", '"a note"', "note*", "ledger.py"):
        assert _found(vybe, query) == _found(on_file, query) != [], query


def test_the_server_counts_each_sessions_typed_messages_as_the_copy_inserts_them(tmp_path, vybe):
    """The count is derived, never copied: a second copy inserts nothing and counts nothing."""
    from vybe.context.recorder import record_user
    from vybe.store.receipts import typed_messages
    from vybe.store.record import SqliteRecord

    local = Vybe(tmp_path / "file")
    source = SqliteStore(local.db_path)
    for n in range(7):
        record_user(SqliteRecord(source), f"s{n % 2}", f"step {n}")
    source.close()
    local.ok("store", "copy", "--to", vybe.url)
    local.ok("store", "copy", "--to", vybe.url)
    server = vybe._store()
    with server.snapshot() as conn:
        assert [typed_messages(conn, s) for s in ("s0", "s1")] == [4, 3]


def test_rows_recorded_before_the_filter_reach_the_server_scrubbed(tmp_path, vybe):
    """A file written with redaction off (and a private span put in by hand, as a store from
    before private tags holds it): once redaction is on, its copy on the server holds no
    planted secret nor the private words, in any table, and the file is left as it was."""
    from tests.privacy.planted import needles, planted

    local = Vybe(tmp_path / "file")
    config = local.config_dir / "config.yaml"
    config.write_text("default_agent: default\nprivacy:\n  redact: false\n")
    secrets = planted()[:10]
    for n, (_, _, line) in enumerate(secrets):
        task = local.ok("task", "create", "--title", f"deploy {n}", "--description", line)
        local.ok("note", task["task"]["id"], line, "--request-id", f"note-{n}")
        local.ok("memory", "set", "-k", f"env-{n}", "-v", line)
    local.ok("session", "say", "s1", secrets[0][2])
    local.sql("UPDATE tasks SET description = description || ' <private>my own words</private>'")
    before = local.db_path.read_bytes()
    assert all(n.encode() in before for _, s, _ in secrets for n in needles(s))
    config.write_text("default_agent: default\n")
    moved = local.ok("store", "copy", "--to", vybe.url)
    assert moved["tables"]["memory"]["copied"] == len(secrets)
    dump = vybe.pg_dump()
    left = [shape for shape, s, _ in secrets if any(n.encode() in dump for n in needles(s))]
    assert left == [] and b"my own words" not in dump
    assert b"[REDACTED:" in dump
    assert local.db_path.read_bytes() == before
