"""The viewer's HTTP server: loopback, a per-launch token (then an HttpOnly SameSite=Strict
cookie), the Host header checked against the listen address (DNS rebinding), no CORS
headers, a strict Content-Security-Policy (scripts only the package's own file), every
request read through a read-only store, and a server-sent-events feed that fires when the
store's high-water mark moves. The standard library's threading server is enough for a
one-person local viewer (a handful of requests at a time, one long-lived feed per open
page), so only the templates need a library (Jinja2, the `ui` extra)."""

from __future__ import annotations

import hmac
import secrets
import time
from http.server import BaseHTTPRequestHandler
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from vybe.actions import viewer
from vybe.errors import VybeError
from vybe.served import QuietServer
from vybe.ui.pages import ROUTES, refused_page

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self';"
    " img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
LIVE_POLL_S = 0.25  # how often the feed reads the high-water mark: a write shows within 1 s
# How often a quiet feed sends a comment line: a page closed since fails the next write or
# the one after, so its thread and its store (a server connection, on PostgreSQL) go.
LIVE_KEEPALIVE_S = 1.0
STATIC = {"/static/live.js": "text/javascript; charset=utf-8"}


class Viewer(QuietServer):
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
        for name, value in HEADERS.items():
            self.send_header(name, value)
        if status == 200:
            cookie = f"vybe_ui={self.server.token}; HttpOnly; SameSite=Strict; Path=/"
            self.send_header("Set-Cookie", cookie)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _allowed(self, query: dict[str, str]) -> bool:
        cookie = self.headers.get("Cookie", "")
        cookies = dict(p.strip().partition("=")[::2] for p in cookie.split(";") if "=" in p)
        given = query.get("token") or cookies.get("vybe_ui", "")
        return hmac.compare_digest(given.encode(), self.server.token.encode())

    def do_GET(self) -> None:
        if self.headers.get("Host") not in self.server.hosts:
            return self._send(421, b"wrong Host", "text/plain")
        split = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(split.query).items()}
        if not self._allowed(query):
            return self._send(403, b"token required", "text/plain")
        if split.path in STATIC:
            body = resources.files("vybe.ui").joinpath("static", split.path[8:]).read_bytes()
            return self._send(200, body, STATIC[split.path])
        route = ROUTES.get(split.path)
        if route is None and split.path != "/live":
            return self._send(404, b"not found", "text/plain")
        store = self.server.open_store()
        try:
            if route is None:
                return self._live(store)
            return self._send(200, route(store, query))
        except VybeError as exc:
            return self._send(400, refused_page(exc.code, exc.message))
        finally:
            store.close()

    def do_POST(self) -> None:
        self._send(405, b"read-only", "text/plain")

    do_PUT = do_DELETE = do_PATCH = do_POST

    def _live(self, store: Any) -> None:
        """Server-sent events: one ``change`` event each time the high-water mark moves."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for name, value in HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        mark = viewer.high_water(store)
        try:
            self.wfile.write(b": open\n\n")
            self.wfile.flush()
            said = time.monotonic()
            while True:
                time.sleep(LIVE_POLL_S)
                now = viewer.high_water(store)
                if now != mark:
                    mark = now
                    self.wfile.write(f"event: change\ndata: {list(now)}\n\n".encode())
                elif time.monotonic() - said >= LIVE_KEEPALIVE_S:
                    self.wfile.write(b": quiet\n\n")
                else:
                    continue
                self.wfile.flush()
                said = time.monotonic()
        except (OSError, VybeError):  # the page went, or the store did
            return
