"""Search latency on a big record against a `LIKE` scan of the same rows, in one run.

A store of N messages of work-shaped text (typed requests, replies, tool output with paths,
ids and error lines) is built through the triggers that index it, then each query is timed
through the search action (words, prefix, phrase, literal path, a session filter) and as the
`LIKE '%…%'` scan a person would write by hand; then p50 / p95 of word and literal queries
against the engine's own search (FTS5, or PostgreSQL's tsquery and trigram index) queried
directly on the same rows. Also: the cost the index adds to one write.

    python benchmarks/search.py [--messages 1000000] [--store PATH] [--postgres]

``--store PATH`` keeps the built store there and reuses it on the next run (building a
million messages takes minutes). ``--postgres`` runs the same on a PostgreSQL server
started here (tests/postgres/server.py: pgserver's binaries, else the system's), against
``ILIKE`` (SQLite's LIKE folds ASCII case; PostgreSQL's does not), and prints its version and
settings.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.postgres.server

from vybe.actions import search as actions
from vybe.store import SqliteStore, Store, open_store
from vybe.store.search import SearchQuery

WORDS = [
    "migrate",
    "billing",
    "tables",
    "invoice",
    "ledger",
    "rounding",
    "deploy",
    "window",
    "review",
    "queue",
    "oldest",
    "first",
    "cache",
    "latency",
    "retry",
    "backoff",
    "schema",
    "index",
    "column",
    "constraint",
    "handler",
    "request",
    "reply",
    "test",
    "failure",
    "timeout",
    "worker",
    "agent",
    "task",
    "claim",
    "lease",
    "note",
    "memory",
    "project",
    "session",
    "context",
]
TYPES = ("user", "assistant", "tool", "tool", "tool", "assistant")
HARD = [
    ("prefix of one letter", "t*", "words"),
    ("AND of four common words", "ledger AND billing AND tables AND invoice", "words"),
    ("rare phrase of common words", '"ledger ledger ledger"', "words"),
    ("literal, common trigrams", "/srv/app", "literal"),
    ("literal, 3 common letters", "ing", "literal"),
    ("literal, rare, common trigrams", "ledger ledger ledger", "literal"),
    ("literal, no match", "zzzq", "literal"),
]


def _text(rng: random.Random, n: int, kind: str) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40)))
    if kind == "tool":
        return f"{words}\nFileNotFoundError: /srv/app{n % 997}/module_{n % 313}.py line {n % 89}"
    if kind == "user":
        return f"please {words} for task_{n}"
    return words


def build(store: Store, messages: int, per_session: int = 2000) -> float:
    """Insert ``messages`` rows in sessions of ``per_session``; returns seconds taken."""
    rng = random.Random(7)
    started = time.perf_counter()
    batch = 20_000
    for first in range(0, messages, batch):
        rows = []
        for n in range(first, min(first + batch, messages)):
            kind = TYPES[n % len(TYPES)]
            session = f"claude:s{n // per_session}"
            rows.append((session, n % per_session + 1, kind, _text(rng, n, kind), n // 4))
        sessions = sorted({r[0] for r in rows})

        def body(conn, rows=rows, sessions=sessions):
            conn.executemany(
                "INSERT INTO sessions (id, created_at) VALUES (?, 't') ON CONFLICT DO NOTHING",
                [(s,) for s in sessions],
            )
            conn.executemany(
                "INSERT INTO messages (session_id, context_seq, type, source, content_text,"
                " tokens, created_at) VALUES (?, ?, ?, 'bench', ?, ?, '2026-12-01T00:00:00Z')",
                rows,
            )

        store.transact(body)
    return time.perf_counter() - started


def _median_ms(call, rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _p50_p95(call, rounds: int = 40) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


# The engine's own search, queried directly on the same rows: 20 rows, no paging, no
# filters, no snippets (what vybe's search adds on top of it).
_DIRECT = {
    "sqlite": {
        "words": "SELECT rowid FROM search_words WHERE search_words MATCH ?"
        " ORDER BY bm25(search_words) LIMIT 20",
        "literal": "SELECT rowid FROM search_literal WHERE search_literal MATCH ?"
        " ORDER BY rowid DESC LIMIT 20",
    },
    "postgres": {
        "words": "SELECT id FROM message_words WHERE words @@ phraseto_tsquery('simple', %s)"
        " ORDER BY ts_rank(words, phraseto_tsquery('simple', %s)) DESC LIMIT 20",
        "literal": "SELECT id FROM messages WHERE vybe_trigrams(vybe_message_literal("
        "content_text, content_json)) @> vybe_trigram_probe(%s) AND strpos(lower("
        "vybe_message_literal(content_text, content_json)), lower(%s)) > 0"
        " ORDER BY id DESC LIMIT 20",
    },
}
PERCENTILE_CASES = [
    ("word", "ledger", "words"),
    ("two words", "billing invoice", "words"),
    ("literal path", "/srv/app17/module_42.py", "literal"),
    ("literal id", "task_123457", "literal"),
]


def percentiles(store: Store, kind: str) -> None:
    """p50 / p95 of vybe's search against the engine's own search queried directly."""
    print(f"{'query':<14}{'p50 ms':>8}{'p95 ms':>8}{'direct p50':>12}{'direct p95':>12}")
    for name, query, mode in PERCENTILE_CASES:
        p50, p95 = _p50_p95(lambda q=query, m=mode: actions.search(store, SearchQuery(q), m))
        sql = _DIRECT[kind][mode]
        if kind == "sqlite":
            needle = '"' + query + '"' if mode == "literal" else query
            direct = lambda sql=sql, n=needle: store.conn.execute(sql, (n,)).fetchall()  # noqa: E731
        else:
            raw = store.conn.raw
            direct = lambda sql=sql, q=query, r=raw: r.execute(sql, (q, q)).fetchall()  # noqa: E731
        d50, d95 = _p50_p95(direct)
        print(f"{name:<14}{p50:>8.2f}{p95:>8.2f}{d50:>12.2f}{d95:>12.2f}")


def report(store: Store, messages: int, like: str) -> None:
    """Each query through the search action against the same needle as a ``like`` scan."""
    cases = [
        ("word", "ledger", "ledger"),
        ("prefix", "migra*", "migra"),
        ("phrase", '"oldest first"', "oldest first"),
        ("literal path", "/srv/app17/module_42.py", "/srv/app17/module_42.py"),
        ("literal id", "task_123457", "task_123457"),
    ]
    # LIKE 21: the first 21 rows a scan meets, unranked (fast when the needle is common);
    # LIKE all: every match, which ranking them would need (a scan of the whole table).
    print(f"{'query':<14}{'search ms':>10}{'LIKE 21 ms':>11}{'LIKE all ms':>12}{'ratio':>8}")
    for name, query, needle in cases:
        ms = _median_ms(lambda q=query: actions.search(store, SearchQuery(q)))
        first, every = (
            _median_ms(
                lambda n=needle, sql=sql: store.conn.execute(sql, (f"%{n}%",)).fetchall(),
                rounds=3,
            )
            for sql in (
                f"SELECT id FROM messages WHERE content_text {like} ? LIMIT 21",
                f"SELECT id FROM messages WHERE content_text {like} ?",
            )
        )
        print(f"{name:<14}{ms:>10.2f}{first:>11.1f}{every:>12.1f}{every / ms:>7.0f}x")
    session = f"claude:s{messages // 4000}"
    ms = _median_ms(lambda: actions.search(store, SearchQuery("ledger", session_id=session)))
    print(f"{'word+session':<14}{ms:>10.2f}")
    # The hard ones: every term common, few or no rows matching them all (the time bound
    # is what keeps these short).
    print(f"{'hard query':<30}{'search ms':>10}  complete")
    for name, query, mode in HARD:
        found: dict = {}

        def run(q=query, m=mode, into=found):
            into.update(actions.search(store, SearchQuery(q), m))

        ms = _median_ms(run, rounds=3)
        print(f"{name:<30}{ms:>10.1f}  {found['complete']}")


# A reply's tool calls as the imports record them (two Bash calls of a Claude Code reply).
CALLS = (
    '{"tool_calls": [{"id": "toolu_1", "name": "Bash", "arguments": {"command":'
    ' "find ~/.claude -name \\"*.md\\" -type f 2>/dev/null | head -20", "description":'
    ' "Find session files"}}, {"id": "toolu_2", "name": "Bash", "arguments": {"command":'
    ' "ls -la ~/.claude/ 2>/dev/null | head -20", "description": "List ~/.claude"}}]}'
)


def write_ms(store: Store, calls: str | None = None) -> float:
    """One prompt written (or, with ``calls``, a reply making those tool calls), its index
    entries with it."""
    prompt = _text(random.Random(1), 5, "user")

    def one_prompt(conn) -> None:
        conn.execute(
            "INSERT INTO sessions (id, created_at) VALUES ('w', 't') ON CONFLICT DO NOTHING"
        )
        conn.execute(
            "INSERT INTO messages (session_id, context_seq, type, content_text, content_json,"
            " tokens, created_at) SELECT 'w', COALESCE(MAX(context_seq), 0) + 1, 'user', ?, ?,"
            " 9, 't' FROM messages WHERE session_id = 'w'",
            (prompt, calls),
        )

    return _median_ms(lambda: store.transact(one_prompt), rounds=200)


def on_postgres(messages: int) -> None:
    from tests.postgres.server import running

    with running() as server:
        server.admin("CREATE DATABASE bench")
        store = open_store(server.url("bench"))
        shown = ", ".join(f"{k}={v}" for k, v in server.settings.items() if k != "port")
        print(f"{server.version}; {shown}")
        took = build(store, messages)
        store.conn.raw.execute("ANALYZE")
        size = store.conn.raw.execute("SELECT pg_database_size('bench')").fetchone()[0]
        print(f"{messages:,} messages indexed in {took:.1f} s; database {size / 1e6:,.0f} MB")
        report(store, messages, "ILIKE")
        percentiles(store, "postgres")
        print(f"one indexed prompt written: {write_ms(store):.2f} ms")
        print(f"one indexed reply with 2 tool calls written: {write_ms(store, CALLS):.2f} ms")
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--store", type=Path, help="keep the built store here, and reuse it")
    parser.add_argument("--postgres", action="store_true", help="on a PostgreSQL server")
    args = parser.parse_args()
    if args.postgres:
        on_postgres(args.messages)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = args.store or Path(folder) / "vybe.db"
        store = SqliteStore(path)
        if path.stat().st_size > 1 << 20:
            print(f"reusing {path}")
        else:
            took = build(store, args.messages)
            print(f"{args.messages:,} messages indexed in {took:.1f} s")
        print(f"store {path.stat().st_size / 1e6:,.0f} MB")
        report(store, args.messages, "LIKE")
        percentiles(store, "sqlite")
        store.close()
        write = SqliteStore(Path(folder) / "write.db")
        print(f"one indexed prompt written: {write_ms(write):.2f} ms")
        print(f"one indexed reply with 2 tool calls written: {write_ms(write, CALLS):.2f} ms")
        write.close()


if __name__ == "__main__":
    main()
