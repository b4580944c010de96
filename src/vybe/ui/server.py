"""The viewer's HTTP server: loopback, a per-launch token (then an HttpOnly SameSite=Strict
cookie), the Host header checked against the listen address, a strict CSP, every recorded
string escaped, and a server-sent-events feed that fires when the store's high-water mark
moves. The standard library's server is enough for a one-person local viewer and adds no
dependency."""

from __future__ import annotations

import hmac
import secrets
import time
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from vybe.actions import viewer

CSP = "default-src 'none'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self'"
STYLE = (
    "body{font:14px system-ui,sans-serif;margin:2em;color:#222;background:#fafafa}"
    "@media(prefers-color-scheme:dark){body{color:#ddd;background:#161616}a{color:#8bf}}"
    "td,th{padding:.3em .6em;text-align:left;vertical-align:top}pre{white-space:pre-wrap}"
)


def page(title: str, body: str) -> bytes:
    return (
        f"<!doctype html><meta charset=utf-8><title>{escape(title)}</title>"
        f"<style>{STYLE}</style><nav><a href='/'>Sessions</a> · <a href='/events'>Events</a>"
        f"</nav><h1>{escape(title)}</h1>{body}"
    ).encode()


def sessions_page(store: Any, query: dict[str, str]) -> bytes:
    found = viewer.sessions(store, query.get("before"))
    rows = "".join(
        f"<tr><td><a href='/session?id={quote(s['id'])}'>{escape(s['id'])}</a></td>"
        f"<td>{escape(s['first_words'] or '')}</td><td>{s['messages']}</td>"
        f"<td>{s['checkpoints']}</td><td>{s['tokens']}</td><td>{escape(s['last_at'] or '')}</td>"
        "</tr>"
        for s in found["sessions"]
    )
    more = f"<a href='/?before={quote(found['next'])}'>older</a>" if found["next"] else ""
    head = "<tr><th>session<th>first prompt<th>messages<th>compactions<th>tokens<th>last"
    return page("Sessions", f"<table>{head}{rows}</table>{more}")


def session_page(store: Any, query: dict[str, str]) -> bytes:
    sid = query.get("id", "")
    found = viewer.session(store, sid, int(query.get("after", "0") or 0))
    items = "".join(
        f"<details open><summary>#{m['context_seq']} {escape(m['type'])}</summary>"
        f"<pre>{escape(m['content_text'])}</pre></details>"
        for m in found["messages"]
    )
    marks = "".join(
        f"<section><h3>checkpoint {c['id']} ({escape(c['mode'])})</h3>"
        f"<h4>MIND</h4><pre>{escape(c['mind'])}</pre><h4>MEMO</h4><pre>{escape(c['memo'])}</pre>"
        f"<h4>NOW</h4><pre>{escape(c['now'])}</pre></section>"
        for c in found["checkpoints"]
    )
    more = (
        f"<a href='/session?id={quote(sid)}&after={found['next']}'>more</a>"
        if found["next"]
        else ""
    )
    return page(f"Session {sid}", items + more + marks)


def events_page(store: Any, query: dict[str, str]) -> bytes:
    before = query.get("before")
    found = viewer.events(store, query, int(before) if before and before.isdigit() else None)
    rows = "".join(
        f"<tr><td>{e['id']}</td><td>{escape(e['kind'])}</td><td>{escape(e['agent_name'])}</td>"
        f"<td>{escape(e['task_id'] or '')}</td><td>{escape(e['message'])}</td></tr>"
        for e in found["events"]
    )
    more = f"<a href='/events?before={found['next']}'>older</a>" if found["next"] else ""
    return page("Events", f"<table>{rows}</table>{more}")


ROUTES = {"/": sessions_page, "/session": session_page, "/events": events_page}


class Viewer(ThreadingHTTPServer):
    """The server: the store it reads, the token and the Host values it accepts."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], open_store: Any) -> None:
        super().__init__(address, Handler)
        self.open_store = open_store
        self.token = secrets.token_urlsafe(16)  # 128 bits
        host, port = str(self.server_address[0]), int(self.server_address[1])
        self.hosts = {f"{host}:{port}", f"localhost:{port}"}
        self.url = f"http://{host}:{port}/?token={self.token}"


class Handler(BaseHTTPRequestHandler):
    server: Viewer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str = "text/html; charset=utf-8") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _allowed(self, query: dict[str, str]) -> bool:
        token = self.server.token
        cookie = self.headers.get("Cookie", "")
        cookies = dict(p.strip().partition("=")[::2] for p in cookie.split(";") if "=" in p)
        given = query.get("token") or cookies.get("vybe_ui", "")
        return hmac.compare_digest(given.encode(), token.encode())

    def do_GET(self) -> None:
        """Each request reads through its own read-only store, closed after it (a SQLite
        connection serves only the thread that opened it)."""
        store = self.server.open_store()
        try:
            self._get(store)
        finally:
            store.close()

    def _get(self, store: Any) -> None:
        if self.headers.get("Host") not in self.server.hosts:
            return self._send(421, b"wrong Host", "text/plain")
        split = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        if not self._allowed(query):
            return self._send(403, b"token required", "text/plain")
        if split.path == "/live":
            return self._live(store)
        route = ROUTES.get(split.path)
        if route is None:
            return self._send(404, b"not found", "text/plain")
        body = route(store, query)
        self.send_response(200)
        self.send_header("Set-Cookie", f"vybe_ui={self.server.token}; HttpOnly; SameSite=Strict")
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None

    def do_POST(self) -> None:
        self._send(405, b"read-only", "text/plain")

    do_PUT = do_DELETE = do_PATCH = do_POST

    def _live(self, store: Any) -> None:
        """Server-sent events: one ``change`` event each time the high-water mark moves."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        mark = viewer.high_water(store)
        try:
            while True:
                time.sleep(0.25)
                now = viewer.high_water(store)
                if now != mark:
                    mark = now
                    self.wfile.write(f"event: change\ndata: {list(now)}\n\n".encode())
                    self.wfile.flush()
        except OSError:
            return
