"""Stand between an MCP client and a stdio server, and time the server's first answer.

    python e2e/mcp_relay.py LOG SERVER_ARGV...

Every line passes through unchanged, both ways. Once the server wrote its first line (the
answer to the client's first request: ``initialize``, or Claude Code 2.1.332's
``server/discover`` probe of the 2026-07-28 protocol), one JSON line is appended to LOG:
``asked_ms``, when the client's first line came, and ``answered_ms``, when the answer went
out, both counted from the moment this relay started the server; ``asked``: the method of
the client's first message. Standard library only (it starts in a few milliseconds).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import IO, Any


def forward(source: IO[bytes], sink: IO[bytes], first: dict[str, Any], started: float) -> None:
    """Copy ``source`` to ``sink`` line by line; note when the first line came, and what."""
    for line in source:
        if not first:
            first.update(ms=(time.perf_counter() - started) * 1000, line=line)
        sink.write(line)
        sink.flush()
    sink.close()


def method(line: bytes) -> object:
    try:
        return json.loads(line).get("method")
    except (ValueError, AttributeError):
        return None


def main(log: str, argv: list[str]) -> int:
    started = time.perf_counter()
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    asked: dict[str, Any] = {}
    inbound = (sys.stdin.buffer, server.stdin, asked, started)
    threading.Thread(target=forward, args=inbound, daemon=True).start()
    answered = False
    for line in server.stdout:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
        if not answered:
            answered = True
            took = {"asked_ms": asked.get("ms"), "asked": method(asked.get("line", b""))}
            took["answered_ms"] = (time.perf_counter() - started) * 1000
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(took) + "\n")
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
