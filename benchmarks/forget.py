"""`vybe forget` of one session in a store of 120k messages, on SQLite and PostgreSQL.

The store is benchmarks/search.py's (sessions of 2,000 work-shaped messages, indexed by the
triggers); each forget runs through the action as the command does: the dry run (a count in
a read snapshot), then the forget itself, whose time on SQLite includes overwriting the
freed pages, merging both search indexes into one segment each (the part that grows with
the store: FTS5's optimize rewrites the whole index) and emptying the WAL. A ``--text``
forget, which reads every row of words, is timed beside it.

    python benchmarks/forget.py [--messages 120000] [--sessions 3] [--postgres]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks.search, tests

from benchmarks.search import build

from vybe.actions.forget import Selection, forget
from vybe.store import SqliteStore, Store, open_store


def _ms(call) -> tuple[float, dict]:
    started = time.perf_counter()
    result = call()
    return (time.perf_counter() - started) * 1000, result


def report(store: Store, messages: int, sessions: int) -> None:
    dry, forgotten = [], []
    for n in range(sessions):
        session = f"claude:s{(messages // 2000) // 2 + n}"
        took, result = _ms(lambda s=session: forget(store, Selection(session=s), dry_run=True))
        dry.append(took)
        took, result = _ms(lambda s=session: forget(store, Selection(session=s)))
        forgotten.append(took)
        assert result["forgotten"]["messages"] == 2000, result
    print(f"forget --session --dry-run: {statistics.median(dry):,.0f} ms (median of {sessions})")
    print(
        f"forget --session (2,000 messages): {statistics.median(forgotten):,.0f} ms"
        f" (median of {sessions}; each: {', '.join(f'{t:,.0f}' for t in forgotten)})"
    )
    text = Selection(text="for task_77772")
    took, _ = _ms(lambda: forget(store, text, dry_run=True))
    print(f"forget --text --dry-run (every row of words read): {took:,.0f} ms")
    took, result = _ms(lambda: forget(store, text))
    print(
        f"forget --text ({result['total']} row changed; the rest is the indexes' merge and"
        f" the WAL on SQLite): {took:,.0f} ms"
    )


def on_postgres(messages: int, sessions: int) -> None:
    from tests.postgres.server import running

    with running() as server:
        server.admin("CREATE DATABASE bench")
        store = open_store(server.url("bench"))
        print(f"{server.version}")
        took = build(store, messages)
        store.conn.raw.execute("ANALYZE")
        print(f"{messages:,} messages indexed in {took:.1f} s")
        report(store, messages, sessions)
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=120_000)
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--postgres", action="store_true", help="on a PostgreSQL server")
    args = parser.parse_args()
    if args.postgres:
        on_postgres(args.messages, args.sessions)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "vybe.db"
        store = SqliteStore(path)
        took = build(store, args.messages)
        print(
            f"{args.messages:,} messages indexed in {took:.1f} s;"
            f" store {path.stat().st_size / 1e6:,.0f} MB"
        )
        report(store, args.messages, args.sessions)
        print(f"store after: {path.stat().st_size / 1e6:,.0f} MB")
        store.close()


if __name__ == "__main__":
    main()
