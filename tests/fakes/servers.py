"""Fake OpenAI and Anthropic servers: real sockets on 127.0.0.1, scripted answers.

A request that asks to stream gets its reply as server-sent events in a chunked body, one
event per chunk, text and tool arguments cut into small pieces: the scripted JSON answer is
turned into the events a real server would send, or ``Response.events`` are sent as given.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler
from typing import Any

from vybe.served import QuietServer


@dataclass
class Response:
    """One scripted answer; ``die`` sends the headers and part of the body, then hangs up.

    ``events`` (SSE event texts, or raw bytes) are sent one per chunk instead of ``body``,
    ``gap`` seconds apart, with a ``stall`` before the middle one; ``die`` then hangs up at
    the middle.
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    die: bool = False
    events: list[str | bytes] | None = None
    gap: float = 0.0
    stall: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


Responder = Callable[[Received], Response]


class FakeServer:
    """An HTTP server in a thread; every POST is recorded and answered by ``responder``."""

    def __init__(
        self,
        responder: Responder,
        probe: Response | None = None,
        *,
        streams: bool = True,
        stream_usage: bool = True,
        refuse_stream_options: bool = False,
        keep_alive: bool = False,
        piece: int = 3,
    ) -> None:
        """``streams=False`` plays a server that answers whole bodies even when asked to
        stream, ``stream_usage=False`` one that never sends the usage chunk,
        ``refuse_stream_options`` one that rejects the ``stream_options`` field, and
        ``keep_alive`` one that keeps each connection open for the next request, as the
        real APIs do (a reply cut short still closes it); ``piece``: the characters of text
        in each streamed delta."""
        self.responder = responder
        self.probe = probe or Response(body={"data": []})
        self.streams = streams
        self.stream_usage = stream_usage
        self.refuse_stream_options = refuse_stream_options
        self.keep_alive = keep_alive
        self.piece = piece
        self.received: list[Received] = []
        self._server = QuietServer(("127.0.0.1", 0), self._handler())
        # shutdown() waits for the loop's next poll: the default half second, on every test.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

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
            protocol_version = "HTTP/1.1" if server.keep_alive else "HTTP/1.0"

            def setup(self) -> None:
                super().setup()
                # Each event goes out as it is written, as a real server's (no Nagle delay
                # behind the unacknowledged one before it, on a kept-alive connection).
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

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
                answer = server.answer(received)
                if answer.events is not None:
                    self._send_events(answer)
                else:
                    self._send(answer)

            def _send_events(self, answer: Response) -> None:
                self.protocol_version = "HTTP/1.1"
                self.send_response(answer.status)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                if not server.keep_alive or answer.die:
                    self.send_header("Connection", "close")
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                middle = len(answer.events or ()) // 2
                try:
                    for number, event in enumerate(answer.events or ()):
                        if number == middle and answer.die:
                            break
                        pause = answer.stall if number == middle else answer.gap
                        if pause:
                            time.sleep(pause)
                        data = event if isinstance(event, bytes) else event.encode()
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                    if not answer.die:
                        self.wfile.write(b"0\r\n\r\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    # the client gave up waiting (a stall longer than its timeout)
                    self.close_connection = True
                if not server.keep_alive or answer.die:
                    self.close_connection = True

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
                if not server.keep_alive or answer.die:
                    self.close_connection = True

        return Handler

    def answer(self, received: Received) -> Response:
        """The scripted answer, as events when the request asked to stream."""
        body = received.body if isinstance(received.body, dict) else {}
        if self.refuse_stream_options and "stream_options" in body:
            return openai_error(400, "stream_options: Extra inputs are not permitted")
        try:
            answer = self.responder(received)
        except Exception as exc:  # a broken script shows up as a 500 with its reason
            return Response(599, {"error": {"message": f"fake server: {exc!r}"}})
        streamed = self.streams and body.get("stream")
        if not streamed or answer.status != 200 or answer.events is not None:
            return answer
        if isinstance(answer.body, dict) and "choices" in answer.body:
            usage = self.stream_usage and bool(body.get("stream_options", {}).get("include_usage"))
            return replace(answer, events=openai_events(answer.body, usage, self.piece))
        if isinstance(answer.body, dict) and answer.body.get("type") == "message":
            return replace(answer, events=anthropic_events(answer.body, self.piece))
        if isinstance(answer.body, dict) and answer.body.get("object") == "response":
            return replace(answer, events=responses_events(answer.body, self.piece))
        return answer


def _pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def openai_events(body: dict[str, Any], usage: bool = True, piece: int = 3) -> list[str]:
    """A Chat Completions body as stream chunks: a role chunk, the text in 3-character pieces,
    each tool call's id and name then its arguments in pieces (parallel calls' fragments
    interleaved, keyed by index), the finish reason, the usage chunk if asked, ``[DONE]``.
    The JSON is UTF-8, not ASCII escapes, as vLLM and llama.cpp send it."""
    choice = body["choices"][0]
    message = choice["message"]
    head = {"id": body["id"], "object": "chat.completion.chunk", "created": 0, "model": "fake"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": p}) for p in _pieces(message.get("content") or "", piece)]
    calls = message.get("tool_calls") or []
    fragments = [_pieces(c["function"]["arguments"], piece) for c in calls]
    for round_ in range(max((len(f) for f in fragments), default=0)):
        for index, call in enumerate(calls):
            if round_ >= len(fragments[index]):
                continue
            fragment: dict[str, Any] = {"index": index, "function": {}}
            if round_ == 0:
                fragment.update(id=call["id"], type="function")
                fragment["function"]["name"] = call["function"]["name"]
            fragment["function"]["arguments"] = fragments[index][round_]
            chunks.append(chunk({"tool_calls": [fragment]}))
    chunks.append(chunk({}, choice["finish_reason"]))
    if usage:
        chunks.append({**head, "choices": [], "usage": body["usage"]})
    data = [json.dumps(c, ensure_ascii=False) for c in chunks]
    return [f"data: {d}\n\n" for d in data] + ["data: [DONE]\n\n"]


def anthropic_events(body: dict[str, Any], piece: int = 3) -> list[str]:
    """A Messages body as stream events: message_start with the input usage, a ping, each
    block's start, deltas (text, or the input JSON in pieces) and stop, message_delta with
    the stop reason and output tokens, message_stop."""
    usage = body["usage"]
    started = {**body, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": started},
        {"type": "ping"},
    ]
    for index, block in enumerate(body["content"]):
        if block["type"] == "text":
            opened: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(block["text"], piece)]
        else:
            opened = {**block, "input": {}}
            pieces = _pieces(json.dumps(block["input"]), piece)
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
        events.append({"type": "content_block_start", "index": index, "content_block": opened})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": body["stop_reason"], "stop_sequence": None}
    events.append(
        {"type": "message_delta", "delta": stop, "usage": {"output_tokens": usage["output_tokens"]}}
    )
    events.append({"type": "message_stop"})
    return [sse(e["type"], e) for e in events]


def responses_events(body: dict[str, Any], piece: int = 3) -> list[str]:
    """A Responses body as the events Codex reads: created, each output item added, its text
    in deltas, the item done, then completed with the whole response."""
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**body, "output": [], "status": "in_progress"}}
    ]
    for index, item in enumerate(body["output"]):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        if item["type"] == "message":
            text = item["content"][0]["text"]
            events += [
                {"type": "response.output_text.delta", "output_index": index, "delta": p}
                for p in _pieces(text, piece)
            ]
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": body})
    return [sse(e["type"], e) for e in events]


def sse(name: str, data: dict[str, Any]) -> str:
    """One named server-sent event, its JSON in UTF-8 as real servers send it."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


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


def responses_reply(
    text: str = "",
    calls: Iterable[tuple[str, str, dict[str, Any]]] = (),
    usage: tuple[int, int, int] = (10, 5, 0),
) -> Response:
    """A Responses answer: a message item with the text, a function_call item per call."""
    output: list[dict[str, Any]] = []
    if text:
        content = [{"type": "output_text", "text": text, "annotations": []}]
        output.append({"type": "message", "role": "assistant", "content": content})
    output += [
        {"type": "function_call", "call_id": i, "name": n, "arguments": json.dumps(a)}
        for i, n, a in calls
    ]
    fresh, out, cached = usage
    usage_body = {
        "input_tokens": fresh,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": fresh + out,
    }
    return Response(
        body={
            "id": "resp_fake",
            "object": "response",
            "status": "completed",
            "output": output,
            "usage": usage_body,
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
