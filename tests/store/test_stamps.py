"""The newest import stamps of a session are found from its newest rows, a page at a time:
on either store the read walks the session's index, and a stamp pages back is still found."""

from __future__ import annotations

import json

from vybe.store import record as record_rows

AT = "2026-01-01T00:00:00.000000Z"
KEY = "claude_import"


def _session(store, session_id: str, rows: int, stamped: set[int]) -> None:
    def fill(conn) -> None:
        conn.execute("INSERT INTO sessions (id, created_at) VALUES (?, ?)", (session_id, AT))
        conn.executemany(
            "INSERT INTO messages (session_id, context_seq, type, source, content_text,"
            " content_json, tokens, created_at) VALUES (?, ?, 'user', 'claude', 'x', ?, 1, ?)",
            [
                (
                    session_id,
                    seq,
                    json.dumps({KEY: {"offset": seq}} if seq in stamped else {"other": seq}),
                    AT,
                )
                for seq in range(1, rows + 1)
            ],
        )

    store.transact(fill)


def _found(store, session_id: str) -> list[int]:
    with store.snapshot() as conn:
        return [seq for seq, _ in record_rows.stamps(conn, session_id, KEY)]


def test_stamps_are_found_newest_first_across_pages(store):
    page = record_rows.STAMPS_READ
    stamped = {3, page + 5, 3 * page + 1}
    _session(store, "s", 4 * page, stamped)
    _session(store, "other", 50, {10, 20})
    assert _found(store, "s") == sorted(stamped, reverse=True)
    assert _found(store, "other") == [20, 10]
    assert _found(store, "none") == []


def test_a_long_session_without_a_stamp_is_read_in_a_few_growing_pages(store):
    _session(store, "deep", 20_000, {5})
    pages = []

    def counted(conn):
        real = conn.execute

        class Counting:
            def execute(self, sql, params=()):
                if sql == record_rows.STAMPS_PAGE:
                    pages.append(params[2])
                return real(sql, params)

        return Counting()

    with store.snapshot() as conn:
        assert [seq for seq, _ in record_rows.stamps(counted(conn), "deep", KEY)] == [5]
    assert pages[0] == record_rows.STAMPS_READ and max(pages) == record_rows.STAMPS_READ_MOST
    assert pages == sorted(pages) and len(pages) <= 12, pages


def test_the_newest_stamp_is_read_along_the_sessions_index_not_a_table_scan(store):
    _session(store, "long", 3000, {2990})
    for n in range(5):
        _session(store, f"s{n}", 400, set())
    store.transact(lambda conn: conn.execute("ANALYZE messages"))
    with store.snapshot() as conn:
        sql = record_rows.STAMPS_PAGE
        args = ("long", 2**62, record_rows.STAMPS_READ, f'%"{KEY}"%')
        plan = " ".join(str(tuple(r)) for r in conn.execute(f"EXPLAIN {sql}", args).fetchall())
    assert "Seq Scan" not in plan and "SCAN messages" not in plan, plan
    assert next(iter(_found(store, "long"))) == 2990
