"""The ranking's bounded candidate lists still find the entries that matter."""

from __future__ import annotations

from vybe.store import SqliteStore, Store
from vybe.store import memory as memory_rows

AT = "2026-01-01T00:00:00.000000Z"


def _insert(store: Store, key: str, kind: str = "fact", reads: int = 0, at: str = AT) -> None:
    row = memory_rows.MemoryRow(
        f"mem_{key}", key, "v", "string", "global", "", kind, False, None, None, None, None, None
    )
    store.transact(lambda c: memory_rows.upsert(c, row, at))
    store.transact(lambda c: memory_rows.touch(c, [row.memory_id] * reads, at))


def _top(store: Store, limit: int = 3) -> list[str]:
    with store.snapshot() as conn:
        as_of = "2026-02-01T00:00:00.000000Z"
        ranked = memory_rows.ranked(conn, [("global", "")], as_of, AT, limit)
    return [m["key"] for m in ranked]


def test_an_old_entry_read_often_outranks_many_newer_ones(tmp_path):
    store = SqliteStore(tmp_path / "v.db")
    _insert(store, "old", reads=5, at="2025-12-01T00:00:00.000000Z")
    for i in range(memory_rows.CANDIDATES + 50):
        _insert(store, f"new{i}")
    assert _top(store)[0] == "old"


def test_an_old_directive_stays_a_candidate(tmp_path):
    store = SqliteStore(tmp_path / "v.db")
    _insert(store, "rule", kind="directive", reads=1, at="2020-01-01T00:00:00.000000Z")
    for i in range(memory_rows.CANDIDATES + 50):
        _insert(store, f"new{i}", reads=2)
    assert "rule" in _top(store, limit=1000)
