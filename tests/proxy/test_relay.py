"""The proxy relays each API's requests and replies unchanged, streamed as they arrive,
errors as the upstream gave them, and its own errors in the API's shape."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from tests.fakes.servers import (
    FakeServer,
    Response,
    anthropic_error,
    anthropic_reply,
    openai_error,
    openai_reply,
    scripted,
    sse,
)
from tests.proxy.talk import post
from vybe.proxy.relay import Options, ProxyServer

UNKNOWN = {"safeguards": {"type": "dangerous_tool_use", "classifier_context": {"cwd": "/w"}}}


def proxy_for(upstream: str, **options) -> ProxyServer:
    return ProxyServer(Options(upstream, **options)).start()


def test_an_anthropic_request_reaches_the_upstream_with_every_field_header_and_beta_flag():
    body = {
        "model": "claude-x",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
        "metadata": {"user_id": json.dumps({"session_id": "s1"})},
        **UNKNOWN,
    }
    headers = {
        "x-api-key": "sk-ant-secret",
        "anthropic-beta": "dangerous-tool-use-2026-09-03,oauth-2025",
        "anthropic-version": "2023-06-01",
        "x-app": "cli",
    }
    reply = anthropic_reply("hello")
    reply.body["verdict"] = {"dangerous": False}  # a response field the proxy never reads
    with FakeServer(scripted([reply])) as upstream, proxy_for(upstream.url) as proxy:
        _, response = post(proxy.url, "/v1/messages?beta=true", body, headers)
        answer = json.loads(response.read())
    received = upstream.posts[0]
    assert received.path == "/v1/messages?beta=true"
    assert received.body == body
    for name, value in headers.items():
        assert received.headers[name] == value
    assert answer == reply.body
    assert response.status == 200


def test_a_streamed_reply_reaches_the_client_piece_by_piece_before_the_upstream_finishes():
    events = [sse("ping", {"type": "ping"})] * 6
    slow = Response(events=events, gap=0.3)
    with FakeServer(scripted([slow])) as upstream, proxy_for(upstream.url) as proxy:
        start = time.monotonic()
        _, response = post(proxy.url, "/v1/messages", {"stream": True, "messages": []})
        first = response.read1(1 << 16)
        first_at = time.monotonic() - start
        rest = response.read()
        last_at = time.monotonic() - start
    assert first.startswith(b"event: ping")
    assert first_at < 0.9  # the first event, not the whole stream (1.8 s)
    assert last_at > 1.5
    assert (first + rest).decode() == "".join(events)


def test_openai_chat_and_responses_requests_pass_through_with_the_clients_bearer_key():
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "extra_field": [1]}
    codex = {"model": "m", "input": [], "prompt_cache_key": "t1", "client_metadata": {"a": "b"}}
    done = Response(body={"id": "resp_1", "output": [], "status": "completed", "novel": 1})
    script = scripted([openai_reply("yo"), done])
    with FakeServer(script) as upstream, proxy_for(upstream.url + "/api") as proxy:
        auth = {"Authorization": "Bearer sk-openai-secret", "originator": "codex_exec"}
        _, first = post(proxy.url, "/v1/chat/completions", chat, auth)
        assert json.loads(first.read())["choices"][0]["message"]["content"] == "yo"
        _, second = post(proxy.url, "/v1/responses", codex, auth)
        assert json.loads(second.read()) == done.body
    assert [r.path for r in upstream.posts] == ["/api/v1/chat/completions", "/api/v1/responses"]
    assert [r.body for r in upstream.posts] == [chat, codex]
    assert all(r.headers["Authorization"] == "Bearer sk-openai-secret" for r in upstream.posts)
    assert upstream.posts[1].headers["originator"] == "codex_exec"


@pytest.mark.parametrize(
    "error",
    [
        anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "7"}),
        anthropic_error(529, "overloaded_error", "Overloaded"),
        anthropic_error(400, "invalid_request_error", "prompt is too long: 210000 tokens"),
        openai_error(500, "boom", "server_error", {"x-request-id": "req_9"}),
    ],
)
def test_upstream_errors_reach_the_client_unchanged(error):
    with FakeServer(scripted([error])) as upstream, proxy_for(upstream.url) as proxy:
        _, response = post(proxy.url, "/v1/messages", {"messages": []})
        body = json.loads(response.read())
    assert response.status == error.status
    assert body == error.body
    for name, value in error.headers.items():
        assert response.getheader(name) == value


def test_an_unreachable_upstream_is_a_502_in_the_apis_own_error_shape():
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    with proxy_for(f"http://127.0.0.1:{port}") as proxy:
        _, anthropic = post(proxy.url, "/v1/messages", {"messages": []}, {"x-api-key": "sk-k"})
        a_body = anthropic.read()
        _, openai = post(proxy.url, "/v1/responses", {"input": []}, {"Authorization": "Bearer k"})
        o_body = json.loads(openai.read())
    assert anthropic.status == openai.status == 502
    assert json.loads(a_body)["type"] == "error"
    assert json.loads(a_body)["error"]["type"] == "api_error"
    assert f"127.0.0.1:{port}" in json.loads(a_body)["error"]["message"]
    assert b"sk-k" not in a_body
    assert o_body["error"]["code"] == "upstream_unreachable"


def test_a_body_over_the_limit_is_refused_with_413_without_reaching_the_upstream():
    big = b'{"messages": "' + b"x" * (20 * 1024 * 1024) + b'"}'
    with FakeServer(scripted([])) as upstream, proxy_for(upstream.url, max_body=1 << 20) as proxy:
        _, response = post(proxy.url, "/v1/messages", big)
        body = json.loads(response.read())
        assert upstream.posts == []
    assert response.status == 413
    assert body["error"]["type"] == "request_too_large"


class Raw(BaseHTTPRequestHandler):
    """An upstream that echoes the body it got as it got it, or cuts a stream in the middle."""

    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[bytes]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        data = self.rfile.read(int(self.headers["Content-Length"]))
        Raw.seen.append(data)
        if self.path == "/cut":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"5\r\nhello\r\n")
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.send_response(400)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def raw():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Raw)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_malformed_json_goes_to_the_upstream_byte_for_byte_for_it_to_judge(raw):
    broken = b'{"model": "m", "messages": [ '
    with proxy_for(raw) as proxy:
        _, response = post(proxy.url, "/v1/messages", broken)
        assert response.read() == broken
    assert Raw.seen[-1] == broken
    assert response.status == 400


def test_a_stream_the_upstream_cuts_is_cut_for_the_client_at_the_same_byte(raw):
    with proxy_for(raw) as proxy:
        _, response = post(proxy.url, "/cut", {"stream": True})
        assert response.read1(100) == b"hello"
        with pytest.raises(http.client.IncompleteRead):
            response.read()


def test_head_probes_pass_through(raw):
    with proxy_for(raw) as proxy:
        host, port = proxy.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("HEAD", "/")
        assert conn.getresponse().status == 200
        conn.close()


def test_with_a_token_the_proxy_refuses_a_client_without_it_and_keeps_it_from_the_upstream():
    with (
        FakeServer(scripted([anthropic_reply("ok")])) as upstream,
        proxy_for(upstream.url, token="t0k") as proxy,
    ):
        _, refused = post(proxy.url, "/v1/messages", {"messages": []})
        assert refused.status == 407
        assert json.loads(refused.read())["type"] == "error"
        _, allowed = post(
            proxy.url, "/v1/messages", {"messages": []}, {"Proxy-Authorization": "Bearer t0k"}
        )
        assert allowed.status == 200
    assert len(upstream.posts) == 1
    assert "Proxy-Authorization" not in upstream.posts[0].headers


def test_keep_alive_requests_on_one_client_connection_each_reach_the_upstream():
    script = scripted([anthropic_reply("one"), anthropic_reply("two")])
    with FakeServer(script) as upstream, proxy_for(upstream.url) as proxy:
        conn, first = post(proxy.url, "/v1/messages", {"messages": []})
        assert json.loads(first.read())["content"][0]["text"] == "one"
        conn.request("POST", "/v1/messages", b"{}", {"Content-Type": "application/json"})
        assert json.loads(conn.getresponse().read())["content"][0]["text"] == "two"


def test_a_started_proxy_entered_as_a_context_serves_on_one_thread_and_stops_it_on_close():
    with FakeServer(scripted([anthropic_reply("one")])) as upstream:
        before = set(threading.enumerate())
        with proxy_for(upstream.url) as proxy:
            _, response = post(proxy.url, "/v1/messages", {"messages": []})
            assert response.status == 200
            loops = [t for t in set(threading.enumerate()) - before if "serve_forever" in t.name]
        for loop in loops:
            loop.join(timeout=2)
    assert len(loops) == 1  # a second loop outlives close(), spinning on the closed socket
    assert not loops[0].is_alive()
