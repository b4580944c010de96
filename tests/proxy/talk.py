"""A client's side of the proxy: one POST, its response left open to read as it comes."""

from __future__ import annotations

import http.client
import json

# Each connection ``post`` opened, until ``close_opened`` closes it (tests/proxy/conftest.py
# does after each test): a response is read after ``post`` returns, so ``post`` cannot.
OPENED: list[http.client.HTTPConnection] = []


def post(
    url: str,
    path: str,
    body: object,
    headers: dict[str, str] | None = None,
    timeout: float = 10,
):
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    OPENED.append(conn)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn.request("POST", path, data, {"Content-Type": "application/json", **(headers or {})})
    return conn, conn.getresponse()


def close_opened() -> None:
    while OPENED:
        OPENED.pop().close()
