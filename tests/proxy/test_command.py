"""`vybe proxy` as a real process: it says where it listens, relays and records, and stops on
SIGTERM with its envelope; a bad upstream or listen address is refused before it listens."""

from __future__ import annotations

import json
import re
import signal
import subprocess

from tests.conftest import VYBE
from tests.fakes.servers import FakeServer, anthropic_reply, scripted
from tests.proxy.talk import post
from tests.proxy.test_record import CLAUDE, HEADERS, claude_body, user
from vybe.store import open_store
from vybe.store.record import SqliteRecord


def test_the_command_relays_records_and_stops_on_sigterm(vybe):
    with FakeServer(scripted([anthropic_reply("hello")])) as upstream:
        command = [VYBE, "proxy", "--upstream", upstream.url, "--listen", "127.0.0.1:0"]
        process = subprocess.Popen(
            command, env=vybe.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert process.stderr is not None
        lines = [process.stderr.readline()]
        while not (url := re.search(r"relaying (http://127\.0\.0\.1:\d+) to", lines[-1])):
            assert lines[-1] and len(lines) < 20, lines  # a line before it (a warning) is let by
            lines.append(process.stderr.readline())
        body = claude_body([user("hi")], stream=False)
        folder = "# Environment\n - Primary working directory: /home/user/proj"
        body["system"].append({"type": "text", "text": folder})
        _, response = post(url.group(1), "/v1/messages", body, HEADERS)
        assert json.loads(response.read())["content"][0]["text"] == "hello"
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert out, (out, err)
    envelope = json.loads(out)
    assert envelope["data"]["stopped"] is True and "Traceback" not in err
    store = open_store(vybe.location)
    rows = SqliteRecord(store).messages(f"claude:{CLAUDE}")
    store.close()
    assert [(r.type, r.text) for r in rows] == [("user", "hi"), ("assistant", "hello")]
    # The session is the client's it recognised, in the folder its first request named.
    started = vybe.sql(
        "SELECT agent_name, project_id FROM sessions WHERE id = ?", (rows[0].session_id,)
    )
    assert started == [("claude", "/home/user/proj")]


def test_an_upstream_that_is_not_an_http_url_is_refused(vybe):
    result = vybe("proxy", "--upstream", "ftp://example.com")
    assert (result.code, result.envelope["error_code"]) == (1, "INVALID_INPUT")


def test_a_listen_address_without_a_port_is_refused(vybe):
    result = vybe("proxy", "--upstream", "http://127.0.0.1:9", "--listen", "localhost")
    assert (result.code, result.envelope["error_code"]) == (1, "INVALID_INPUT")
