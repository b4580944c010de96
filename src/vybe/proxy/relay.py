"""The proxy's HTTP server: every request relayed to the upstream as it came, every reply
relayed back as it arrives.

One thread per client connection, and one upstream connection kept per client connection.
Request bodies are read whole up to ``max_body`` (a larger one is read off the socket and
refused with the API's own ``413``); replies are never buffered: each piece the upstream
sends is written to the client before the next is read (chunked when the upstream gave no
length), and handed to the observer's tee after it went out. Headers, unknown fields,
status lines and error bodies pass unchanged; only hop-by-hop headers (and the proxy's own
``Proxy-Authorization``) stay behind. An upstream that cannot be reached, or that drops the
connection before answering, is a ``502`` in the API's error shape; one that breaks off in
the middle of a reply breaks the client's reply off at the same byte.

Credentials are the client's own headers, relayed; the proxy never logs a header, and its
errors name the upstream's address, never a request's headers or query.
"""

from __future__ import annotations

import hmac
import http.client
import socket
import ssl
import sys
import threading
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol
from urllib.parse import urlsplit

from vybe.proxy import wire
from vybe.served import QuietServer

PIECE = 64 * 1024
DEFAULT_MAX_BODY = 32 * 1024 * 1024
# A body over the limit is read off the socket (so the client hears the 413) up to this far.
DRAIN_LIMIT = 1024 * 1024 * 1024
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
NO_BODY = frozenset({204, 304})


class Exchange(Protocol):
    """What the observer makes of one relayed request: the body to send upstream (the
    client's, or its rewrite), the reply's bytes as they went out, then the end."""

    def request(self, body: bytes) -> bytes: ...

    def piece(self, data: bytes) -> None: ...

    def done(self, status: int, headers: dict[str, str], cut: str | None) -> None: ...


class Answer:
    """A reply the proxy gives itself instead of relaying the request (a compaction's)."""

    def __init__(
        self, status: int, headers: dict[str, str], pieces: Iterable[bytes], length: int | None
    ) -> None:
        self.status, self.headers, self.pieces, self.length = status, headers, pieces, length


class Observer(Protocol):
    """Who watches the traffic: a tee for each reply, and the requests it answers itself."""

    def exchange(
        self, api: str, path: str, headers: Any, body: dict[str, Any]
    ) -> Exchange | None: ...

    def answer(
        self, api: str, path: str, headers: Any, body: dict[str, Any], upstream: str
    ) -> Answer | None: ...


class Options:
    """How the proxy runs: where it relays to, its own token, the largest body it reads."""

    def __init__(
        self,
        upstream: str,
        token: str | None = None,
        max_body: int = DEFAULT_MAX_BODY,
        timeout: float = 600.0,
    ) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{upstream!r} is not an http(s) URL")
        self.upstream, self.token, self.max_body, self.timeout = upstream, token, max_body, timeout
        self.scheme, self.netloc = parts.scheme, parts.netloc
        self.host, self.port = parts.hostname, parts.port
        self.prefix = parts.path.rstrip("/")

    def connect(self) -> http.client.HTTPConnection:
        if self.scheme == "https":
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=self.timeout, context=context
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    @property
    def where(self) -> str:
        """The upstream as errors name it: scheme, host and port only."""
        return f"{self.scheme}://{self.netloc}"


class Refused(Exception):
    """A request the proxy answers itself with an error in the API's shape."""

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code


class ClientGone(Exception):
    """The client closed its connection while its reply was being written."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ProxyServer
    upstream_conn: http.client.HTTPConnection | None = None

    def setup(self) -> None:
        super().setup()
        # Each relayed piece goes out at once, not after the next one (Nagle's delay).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a request line would carry its query string."""

    def do_POST(self) -> None:
        self.relay()

    do_GET = do_HEAD = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_POST

    def finish(self) -> None:
        if self.upstream_conn is not None:
            self.upstream_conn.close()
        super().finish()

    def relay(self) -> None:
        if self.path == wire.PROBE_PATH and self.command == "GET":
            self.send_answer(probe_answer())
            return
        api = wire.api_of(self.path)
        try:
            self.check_token()
            body = self.read_body()
        except Refused as refused:
            self.refuse(api, refused)
            return
        parsed = _json_object(body) if api else None
        observer = self.server.observer
        if api and parsed is not None and observer is not None:
            options = self.server.options
            answer = observer.answer(
                api, self.path, self.headers, parsed, options.where + options.prefix
            )
            if answer is not None:
                self.send_answer(answer)
                return
        exchange = None
        if api and parsed is not None and observer is not None:
            exchange = observer.exchange(api, self.path, self.headers, parsed)
        if exchange is not None:
            body = exchange.request(body)
        try:
            response = self.forward(body)
        except Refused as refused:
            if exchange is not None:
                exchange.done(refused.status, {}, "upstream unreachable")
            self.refuse(api, refused)
            return
        self.pass_back(response, exchange)

    def check_token(self) -> None:
        token = self.server.options.token
        if token is None:
            return
        given = self.headers.get("Proxy-Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            raise Refused(
                407,
                "vybe proxy: this proxy needs its token (Proxy-Authorization: Bearer …)",
                "proxy_token_required",
            )

    def read_body(self) -> bytes:
        """The request body, whole if it is within the limit; otherwise read off and refused."""
        limit = self.server.options.max_body
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self.read_chunked(limit)
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise Refused(400, "vybe proxy: Content-Length is not a number", "bad_length") from None
        if length > limit:
            self.drain(length)
            raise self.too_large(limit)
        return self.rfile.read(length) if length > 0 else b""

    def read_chunked(self, limit: int) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024)
            try:
                size = int(line.split(b";", 1)[0].strip() or b"x", 16)
            except ValueError:
                self.close_connection = True
                raise Refused(400, "vybe proxy: a malformed chunked body", "bad_chunk") from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            total += size
            if total > limit:
                self.close_connection = True
                raise self.too_large(limit)
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def drain(self, length: int) -> None:
        """Read a refused body off the socket, a piece at a time, so the client hears why."""
        if length > DRAIN_LIMIT:
            self.close_connection = True
            return
        left = length
        while left > 0:
            got = self.rfile.read(min(PIECE, left))
            if not got:
                break
            left -= len(got)

    def too_large(self, limit: int) -> Refused:
        return Refused(
            413,
            f"vybe proxy: the request body is over its limit of {limit} bytes"
            " (vybe proxy --max-body-mb)",
            "request_too_large",
        )

    def refuse(self, api: str | None, refused: Refused) -> None:
        data = wire.error_body(api, refused.status, refused.message, refused.code)
        try:
            self.send_response_only(refused.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except OSError:
            self.close_connection = True

    def upstream_headers(self, body: bytes) -> list[tuple[str, str]]:
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP]
        if body or self.command in ("POST", "PUT", "PATCH"):
            headers.append(("Content-Length", str(len(body))))
        return headers

    def forward(self, body: bytes) -> http.client.HTTPResponse:
        """The upstream's response to this request; a connection kept from an earlier
        request that turns out closed is opened afresh once."""
        options = self.server.options
        for attempt in (0, 1):
            reused = self.upstream_conn is not None
            if self.upstream_conn is None:
                self.upstream_conn = options.connect()
            conn = self.upstream_conn
            try:
                conn.putrequest(
                    self.command,
                    options.prefix + self.path,
                    skip_host=True,
                    skip_accept_encoding=True,
                )
                conn.putheader("Host", options.netloc)
                for name, value in self.upstream_headers(body):
                    conn.putheader(name, value)
                conn.endheaders(body or None)
                return conn.getresponse()
            except (OSError, http.client.HTTPException) as error:
                conn.close()
                self.upstream_conn = None
                if reused and attempt == 0 and _stale(error):
                    continue
                raise Refused(
                    502,
                    f"vybe proxy: the upstream {options.where} did not answer"
                    f" ({type(error).__name__})",
                    "upstream_unreachable",
                ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def pass_back(self, response: http.client.HTTPResponse, exchange: Exchange | None) -> None:
        """Relay the status, headers and body, each piece as it arrives."""
        headers = {k: v for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP}
        length = response.getheader("Content-Length")
        framed = response.chunked or length is None
        bodiless = self.command == "HEAD" or response.status in NO_BODY
        cut: str | None = None
        try:
            self.send_response_only(response.status, response.reason)
            for name, value in response.getheaders():
                if name.lower() not in HOP_BY_HOP:
                    self.send_header(name, value)
            if bodiless:
                if length is not None:
                    self.send_header("Content-Length", length)
            elif framed:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", length or "0")
            self.end_headers()
            if not bodiless:
                cut = self.copy_body(response, framed, exchange)
        except (ClientGone, OSError):
            cut = "client disconnected"
        finally:
            if cut or response.will_close:
                self.close_upstream()
            if cut:
                self.close_connection = True
        if exchange is not None:
            exchange.done(response.status, headers, cut)

    def copy_body(
        self, response: http.client.HTTPResponse, chunked: bool, exchange: Exchange | None
    ) -> str | None:
        """Copy the body through; what broke it off (None when it was whole)."""
        while True:
            try:
                data = response.read1(PIECE)
            except (OSError, http.client.HTTPException):
                return "upstream cut"
            if not data:
                if response.length:  # the upstream closed before its Content-Length
                    return "upstream cut"
                break
            self.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            if exchange is not None:
                exchange.piece(data)
        if chunked:
            self.write(b"0\r\n\r\n")
        return None

    def write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
        except OSError:
            raise ClientGone from None

    def close_upstream(self) -> None:
        if self.upstream_conn is not None:
            self.upstream_conn.close()
            self.upstream_conn = None

    def send_answer(self, answer: Answer) -> None:
        """The proxy's own reply, sent as it is produced (chunked unless its length is known)."""
        try:
            self.send_response_only(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            chunked = answer.length is None
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(answer.length))
            self.end_headers()
            for data in answer.pieces:
                if data:
                    self.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            if chunked:
                self.write(b"0\r\n\r\n")
        except ClientGone:
            self.close_connection = True


def probe_answer() -> Answer:
    """What the proxy says of itself at ``wire.PROBE_PATH``: that it is one, nothing else."""
    data = b'{"vybe_proxy": true}'
    return Answer(200, {"Content-Type": "application/json"}, [data], len(data))


def _stale(error: BaseException) -> bool:
    """A kept connection the upstream had closed meanwhile (safe to send again)."""
    return isinstance(
        error, http.client.RemoteDisconnected | BrokenPipeError | ConnectionResetError
    )


def _json_object(body: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or None (relayed as bytes, for the upstream to judge)."""
    import json

    try:
        value = json.loads(body)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return value if isinstance(value, dict) else None


class ProxyServer(QuietServer):
    """The listening proxy; ``start()`` serves in a thread, ``serve_forever()`` in this one."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # many clients at once (parallel agents): 5 would reset some

    def __init__(
        self,
        options: Options,
        listen: tuple[str, int] = ("127.0.0.1", 0),
        observer: Observer | None = None,
    ) -> None:
        self.options, self.observer = options, observer
        super().__init__(listen, Handler)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> ProxyServer:
        """Serve in a thread; once: ``with ProxyServer(...).start()`` enters a started one.

        A second loop on the same server would outlive ``close()``: ``shutdown()`` stops one
        loop, and the other spins on the closed socket for the rest of the process."""
        if self._thread is not None:
            return self
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.shutdown()
        self.server_close()

    def __enter__(self) -> ProxyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def note(message: str) -> None:
    """One line on stderr, for the person running the proxy."""
    sys.stderr.write(f"vybe proxy: {message}\n")
    sys.stderr.flush()
