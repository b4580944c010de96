"""Fake OpenAI and Anthropic servers: real sockets on 127.0.0.1, scripted answers."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Response:
    """One scripted answer; ``die`` sends the headers and part of the body, then hangs up."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    die: bool = False


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


Responder = Callable[[Received], Response]


class FakeServer:
    """An HTTP server in a thread; every POST is recorded and answered by ``responder``."""

    def __init__(self, responder: Responder, probe: Response | None = None) -> None:
        self.responder = responder
        self.probe = probe or Response(body={"data": []})
        self.received: list[Received] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def posts(self) -> list[Received]:
        return [r for r in self.received if r.method == "POST"]

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.received.append(Received("GET", self.path, dict(self.headers), None))
                self._send(server.probe)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                received = Received("POST", self.path, dict(self.headers), body)
                server.received.append(received)
                try:
                    answer = server.responder(received)
                except Exception as exc:  # a broken script shows up as a 500 with its reason
                    answer = Response(599, {"error": {"message": f"fake server: {exc!r}"}})
                self._send(answer)

            def _send(self, answer: Response) -> None:
                data = json.dumps(answer.body).encode() if answer.body is not None else b""
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data) + (500 if answer.die else 0)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if answer.die else data)
                self.wfile.flush()
                self.close_connection = True

        return Handler


def scripted(answers: Iterable[Response]) -> Responder:
    """Answer each request with the next scripted Response."""
    queue = list(answers)

    def respond(received: Received) -> Response:
        if not queue:
            raise AssertionError("the script has no answer left")
        return queue.pop(0)

    return respond


def openai_reply(
    text: str = "",
    calls: Iterable[tuple[str, str, dict[str, Any]]] = (),
    usage: tuple[int, int, int] = (10, 5, 0),
    finish: str | None = None,
) -> Response:
    """A Chat Completions answer; ``calls`` are (id, name, arguments)."""
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in calls
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    prompt, completion, cached = usage
    return Response(
        body={
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": finish or ("tool_calls" if tool_calls else "stop"),
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }
    )


def anthropic_reply(
    text: str = "",
    calls: Iterable[tuple[str, str, dict[str, Any]]] = (),
    usage: tuple[int, int, int] = (10, 5, 0),
    stop: str | None = None,
) -> Response:
    """A Messages answer; usage is (fresh input, output, cache read)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
    fresh, output, read = usage
    return Response(
        body={
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": "claude-fake",
            "content": content,
            "stop_reason": stop or ("tool_use" if calls else "end_turn"),
            "stop_sequence": None,
            "usage": {
                "input_tokens": fresh,
                "output_tokens": output,
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": 0,
            },
        }
    )


def openai_error(
    status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None
) -> Response:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return Response(status, {"error": error}, headers=headers or {})


def anthropic_error(
    status: int, kind: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    body = {"type": "error", "error": {"type": kind, "message": message}}
    return Response(status, body, headers=headers or {})
