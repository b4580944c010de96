"""Search latency on a big record against a `LIKE` scan of the same rows, in one run.

A store of N messages of work-shaped text (typed requests, replies, tool output with paths,
ids and error lines) is built through the triggers that index it, then each query is timed
through the search action (words, prefix, phrase, literal path, a session filter) and as the
`LIKE '%…%'` scan a person would write by hand. Also: the cost the index adds to one write.

    python benchmarks/search.py [--messages 1000000] [--store PATH]

``--store PATH`` keeps the built store there and reuses it on the next run (building a
million messages takes minutes).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from vybe.actions import search as actions
from vybe.store import Store
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


def build(path: Path, messages: int) -> float:
    """Insert ``messages`` rows in sessions of 2,000; returns seconds taken."""
    store = Store(path)
    rng = random.Random(7)
    started = time.perf_counter()
    batch = 20_000
    for first in range(0, messages, batch):
        rows = []
        for n in range(first, min(first + batch, messages)):
            kind = TYPES[n % len(TYPES)]
            session = f"claude:s{n // 2000}"
            rows.append((session, n % 2000 + 1, kind, _text(rng, n, kind), n // 4))
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
    store.close()
    return time.perf_counter() - started


def _median_ms(call, rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--store", type=Path, help="keep the built store here, and reuse it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.store or Path(folder) / "vybe.db"
        if path.exists():
            print(f"reusing {path}")
        else:
            took = build(path, args.messages)
            print(f"{args.messages:,} messages indexed in {took:.1f} s")
        print(f"store {path.stat().st_size / 1e6:,.0f} MB")
        store = Store(path)
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
                    "SELECT id FROM messages WHERE content_text LIKE ? LIMIT 21",
                    "SELECT id FROM messages WHERE content_text LIKE ?",
                )
            )
            print(f"{name:<14}{ms:>10.2f}{first:>11.1f}{every:>12.1f}{every / ms:>7.0f}x")
        session = f"claude:s{args.messages // 4000}"
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
        store.close()
        write = Store(Path(folder) / "write.db")
        prompt = _text(random.Random(1), 5, "user")

        def one_prompt(conn) -> None:
            conn.execute(
                "INSERT INTO sessions (id, created_at) VALUES ('w', 't') ON CONFLICT DO NOTHING"
            )
            conn.execute(
                "INSERT INTO messages (session_id, context_seq, type, content_text, tokens,"
                " created_at) SELECT 'w', COALESCE(MAX(context_seq), 0) + 1, 'user', ?, 9, 't'"
                " FROM messages WHERE session_id = 'w'",
                (prompt,),
            )

        per_write = _median_ms(lambda: write.transact(one_prompt), rounds=200)
        print(f"one indexed prompt written: {per_write:.2f} ms")
        write.close()


if __name__ == "__main__":
    main()
