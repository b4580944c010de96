"""`vybe proxy`: the time it adds to a request, on a SQLite and a PostgreSQL store.

Each round sends the same streamed Anthropic Messages turn (then Gemini CLI's
streamGenerateContent turn) once straight to a fake upstream
on 127.0.0.1 and once through a recording proxy to the same upstream, in turn, so a machine
that speeds up or slows down weighs on both alike; the turns are those of 50 sessions of
growing history (each request's new input and its reply are recorded). Printed: time to
the first byte and to the last byte of the reply, p50 and p99, direct and through the proxy,
and the difference (goal: p50 <= 5 ms, p99 <= 20 ms added); the time added when the client
resends a history of 1k and of 10k messages each turn; in rewrite mode, a turn's time and
the tokens sent upstream over a 1k- and a 10k-message session; then the peak of Python's heap while
the proxy relays 50 streaming replies at once.

Run: .venv/bin/python benchmarks/proxy.py [--requests 500] [--no-postgres]
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _common import at_once

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.fakes, tests.postgres
from tests.fakes.brain import PARSERS, serve
from tests.fakes.servers import FakeServer, Response, anthropic_events, anthropic_reply

from vybe.agent.offline import Consolidator
from vybe.context.budget import request_tokens
from vybe.context.protocol import REQUEST_OPEN
from vybe.proxy.recorder import Recorder
from vybe.proxy.relay import Options, ProxyServer
from vybe.proxy.rewrite import Rewriter
from vybe.proxy.writer import Writer
from vybe.store import open_store
from vybe.store.record import SqliteRecord

SESSIONS = 50
REPLY = "The parser's lexer now reads every token of the grammar. " * 8
CONCURRENT = 50
REWRITE_WINDOW = 32_000


def upstream_reply(_received: object) -> Response:
    return anthropic_reply(REPLY, usage=(1200, 90, 1000))


def body(session: int, turn: int) -> bytes:
    user_id = json.dumps({"device_id": "d", "session_id": f"bench-{session:04d}"})
    messages: list[dict] = []
    for n in range(turn + 1):
        messages.append({"role": "user", "content": [{"type": "text", "text": f"step {n}"}]})
        if n < turn:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": REPLY}]})
    payload = {
        "model": "claude-fake",
        "max_tokens": 1000,
        "stream": True,
        "metadata": {"user_id": user_id},
        "messages": messages,
    }
    return json.dumps(payload).encode()


GEMINI_PATH = "/v1beta/models/gemini-fake:streamGenerateContent?alt=sse"


def gemini_reply(_received: object) -> Response:
    """Gemini CLI's streamed reply: an event a sentence, the last with its finish and usage."""
    pieces = [p + "." for p in REPLY.split(".") if p.strip()]
    events = []
    for number, piece in enumerate(pieces, 1):
        candidate: dict = {"content": {"role": "model", "parts": [{"text": piece}]}}
        event: dict = {"candidates": [candidate]}
        if number == len(pieces):
            candidate["finishReason"] = "STOP"
            event["usageMetadata"] = {"promptTokenCount": 1200, "candidatesTokenCount": 90}
        events.append(f"data: {json.dumps(event)}\r\n\r\n")
    return Response(events=events)


def gemini_body(session: int, turn: int) -> bytes:
    """A Gemini CLI turn: its session context, then the session's turns (the first names it)."""
    contents: list[dict] = [{"role": "user", "parts": [{"text": "<session_context>\nlinux"}]}]
    for n in range(turn + 1):
        text = f"session {session:04d}, step {n}"
        contents.append({"role": "user", "parts": [{"text": text}]})
        if n < turn:
            contents.append({"role": "model", "parts": [{"text": REPLY}]})
    config = {"temperature": 1}
    return json.dumps({"contents": contents, "generationConfig": config}).encode()


def timed(url: str, data: bytes, path: str = "/v1/messages") -> tuple[float, float]:
    """Milliseconds to the first byte of the reply's body and to its last."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    start = time.perf_counter()
    conn.request("POST", path, data, {"Content-Type": "application/json"})
    response = conn.getresponse()
    response.read1(1)
    first = time.perf_counter()
    response.read()
    last = time.perf_counter()
    conn.close()
    if response.status != 200:
        raise SystemExit(f"the request failed: {response.status}")
    return (first - start) * 1000, (last - start) * 1000


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


@contextmanager
def proxy_on(
    location: str, upstream: str, rewriter: Rewriter | None = None
) -> Iterator[tuple[ProxyServer, Writer]]:
    writer = Writer(lambda: SqliteRecord(open_store(location)), print)
    recorder = Recorder(writer, upstream, rewriter)
    server = ProxyServer(Options(upstream), observer=recorder).start()
    try:
        yield server, writer
    finally:
        server.close()
        writer.close()


def added(location: str, requests: int, label: str, wire: str = "anthropic") -> None:
    """The time added on ``wire`` (``anthropic``: Claude Code's; ``gemini``: Gemini CLI's)."""
    gemini = wire == "gemini"
    reply, make, path = (
        (gemini_reply, gemini_body, GEMINI_PATH)
        if gemini
        else (upstream_reply, body, "/v1/messages")
    )
    with FakeServer(reply) as upstream, proxy_on(location, upstream.url) as (proxy, w):
        samples: dict[str, list[tuple[float, float]]] = {"direct": [], "proxy": []}
        for n in range(requests + 5):
            data = make(n % SESSIONS, n // SESSIONS)
            direct, proxied = timed(upstream.url, data, path), timed(proxy.url, data, path)
            if n >= 5:  # warm-up left out
                samples["direct"].append(direct)
                samples["proxy"].append(proxied)
        w.flush()
        first = "session 0000, step 0"
        named = "gemini:" + hashlib.sha256(first.encode()).hexdigest()[:24]
        rows = SqliteRecord(open_store(location)).messages(named if gemini else "claude:bench-0000")
    print(f"{label}: {requests} requests, each direct and through the proxy, in turn")
    for index, what in ((0, "first byte"), (1, "last byte")):
        direct = [s[index] for s in samples["direct"]]
        proxied = [s[index] for s in samples["proxy"]]
        cells = []
        for share, name in ((0.5, "p50"), (0.99, "p99")):
            d, p = percentile(direct, share), percentile(proxied, share)
            cells.append(f"{name} {d:.2f} -> {p:.2f} ms (+{p - d:.2f})")
        print(f"  to the {what}: " + "; ".join(cells))
    print(f"  session 0000 recorded {len(rows)} rows for its {requests // SESSIONS} turns")


def long_body(messages: int, extra: int) -> bytes:
    """One session's request whose history holds ``messages`` messages, then ``extra`` turns."""
    turns = []
    for n in range(messages // 2 + extra):
        turns.append({"role": "user", "content": [{"type": "text", "text": f"step {n} " * 12}]})
        turns.append({"role": "assistant", "content": [{"type": "text", "text": REPLY[:120]}]})
    user_id = json.dumps({"device_id": "d", "session_id": f"long-{messages}"})
    payload = {
        "model": "claude-fake",
        "max_tokens": 1000,
        "stream": True,
        "metadata": {"user_id": user_id},
        "messages": turns[:-1],
    }
    return json.dumps(payload).encode()


def long_histories(location: str, rounds: int = 20) -> None:
    """Added time to the first byte when the client resends 1k or 10k messages each turn."""
    with FakeServer(upstream_reply) as upstream, proxy_on(location, upstream.url) as (proxy, w):
        for messages in (1_000, 10_000):
            timed(proxy.url, long_body(messages, 0))  # the whole history recorded, untimed
            w.flush(300)
            added_ms = []
            for extra in range(1, rounds + 1):
                data = long_body(messages, extra)
                direct, through = timed(upstream.url, data)[0], timed(proxy.url, data)[0]
                added_ms.append(through - direct)
            size = len(long_body(messages, rounds)) / 1e6
            print(
                f"  a {messages:,}-message history resent each turn ({size:.1f} MB):"
                f" first byte +{statistics.median(added_ms):.2f} ms p50 over {rounds} turns"
            )


def rewritten_histories(location: str, rounds: int = 10) -> None:
    """Rewrite mode (--checkpoints) over a 1k- and a 10k-message session: the time of a turn
    through the proxy to its last byte, and the tokens the upstream was sent (as the engine
    counts them), once the session's history is recorded and checkpointed."""
    brain = serve(Consolidator(), "anthropic")
    rewriter = Rewriter(REWRITE_WINDOW)
    with FakeServer(brain) as upstream, proxy_on(location, upstream.url, rewriter) as (proxy, _):
        for messages in (1_000, 10_000):
            timed(proxy.url, long_body(messages, 0))  # recorded whole and checkpointed, untimed
            took, sent, turns = [], [], 0
            for extra in range(1, rounds + 1):
                start = len(upstream.posts)
                took.append(timed(proxy.url, long_body(messages, extra))[1])
                bodies = [p.body for p in upstream.posts[start:]]
                normal = [b for b in bodies if REQUEST_OPEN not in json.dumps(b)]
                sent += [request_tokens(PARSERS["anthropic"](b)) for b in normal]
                turns += len(bodies) - len(normal)
            print(
                f"  rewrite mode, a {messages:,}-message session in a {REWRITE_WINDOW:,}-token"
                f" window: a turn {statistics.median(took):.1f} ms to the last byte p50 over"
                f" {rounds} turns ({turns} checkpoint-turn requests among them); upstream sent"
                f" at most {max(sent):,} tokens"
            )


def concurrent_memory(location: str) -> None:
    """The peak of the Python heap while 50 clients stream a slow reply each at once."""
    events = anthropic_events(anthropic_reply(REPLY * 4).body)

    def slow(_received: object) -> Response:
        return Response(events=events, gap=0.002)

    with FakeServer(slow) as upstream, proxy_on(location, upstream.url) as (proxy, _):
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        threads = [
            threading.Thread(target=timed, args=(proxy.url, body(1000 + n, 3)))
            for n in range(CONCURRENT)
        ]
        took = at_once(threads)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    print(
        f"  {CONCURRENT} concurrent streaming replies ({len(events)} events each) relayed in"
        f" {took:.1f} s; peak Python heap {peak / 1e6:.1f} MB"
        f" ({peak / CONCURRENT / 1e3:.0f} kB a stream, clients included)"
    )


def on_sqlite(requests: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        location = str(Path(folder) / "vybe.db")
        added(location, requests, "SQLite store")
        added(location, requests, "SQLite store, the Gemini wire (Gemini CLI)", "gemini")
        long_histories(location)
        rewritten_histories(location)
        concurrent_memory(location)


def on_postgres(requests: int) -> None:
    try:
        from tests.postgres.server import running
    except ImportError as error:
        print(f"PostgreSQL store: skipped ({error})")
        return
    with running() as server:
        server.admin("CREATE DATABASE bench")
        print(server.version)
        added(server.url("bench"), requests, "PostgreSQL store")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    on_sqlite(args.requests)
    if not args.no_postgres:
        on_postgres(args.requests)


if __name__ == "__main__":
    main()
