"""`vybe ui` as a real process on a real SQLite store: pages need the token, a foreign Host
is refused, recorded strings are escaped, writes are refused and the file is unchanged."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest


def vybe(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vybe", *args], env=env, capture_output=True, text=True, check=True
    )


@pytest.fixture
def served(tmp_path: Path):
    env = {**os.environ, "HOME": str(tmp_path), "VYBE_DB_PATH": str(tmp_path / "v.db")}
    env["VYBE_AGENT"] = "tester"
    vybe(env, "task", "create", "--title", "<script>alert(1)</script>")
    digest = hashlib.sha256((tmp_path / "v.db").read_bytes()).hexdigest()
    with subprocess.Popen(
        [sys.executable, "-m", "vybe", "ui", "--no-open"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        url = json.loads(proc.stdout.readline())["data"]["url"]
        yield urlsplit(url), tmp_path / "v.db", digest
        proc.terminate()


def get(where, path: str, host: str | None = None, method: str = "GET"):
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=5)
    conn.request(method, path, headers={"Host": host or where.netloc})
    reply = conn.getresponse()
    return reply.status, reply.read().decode(), reply.getheader("Set-Cookie") or ""


def test_a_page_without_the_token_is_refused(served):
    where, _, _ = served
    assert get(where, "/")[0] == 403


def test_a_foreign_host_header_is_refused(served):
    where, _, _ = served
    assert get(where, f"/?{where.query}", host="evil.example:80")[0] == 421


def test_the_token_opens_every_page_and_sets_a_strict_cookie(served):
    where, _, _ = served
    for path in ("/", "/events", "/session?id=none"):
        status, _, cookie = get(where, f"{path}{'&' if '?' in path else '?'}{where.query}")
        assert status == 200
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_recorded_markup_shows_as_text(served):
    where, _, _ = served
    _, body, _ = get(where, f"/events?{where.query}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "<script>alert" not in body


def test_a_write_is_refused_and_the_file_is_unchanged(served):
    where, path, digest = served
    for page in ("/", "/events", "/session?id=x"):
        get(where, f"{page}{'&' if '?' in page else '?'}{where.query}")
    assert get(where, f"/?{where.query}", method="POST")[0] == 405
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
