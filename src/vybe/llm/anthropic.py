"""The Anthropic Messages wire format: system at top level, content blocks, tool_use/result.

Consecutive messages of one role are merged (tool results travel in a user message), empty
text blocks are left out (the API refuses them), and the system prompt and the newest
message carry cache breakpoints so a long session reads its prefix from the cache.

Replies stream by default (``"stream": true``): the events are folded back into the message
the non-streaming call returns and parsed by the same ``parse``, so both give the same Reply.
An ``error`` event inside the 200 stream is judged like the HTTP error it stands for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from vybe.llm.base import Message, Reply, Request, StopReason, ToolCall, Usage, Watch
from vybe.llm.http import Broken, Failure, RetryPolicy, Transport, ask, event_json
from vybe.llm.sse import Event

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
CACHE = {"type": "ephemeral"}
STOP: dict[str, StopReason] = {
    "end_turn": "end",
    "stop_sequence": "end",
    "pause_turn": "end",
    "tool_use": "tool_use",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
}
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _tool_id(raw: str | None) -> str:
    return _ID_UNSAFE.sub("_", raw or "") or "toolu_missing"


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": _tool_id(message.tool_call_id),
                "content": message.content or "(no output)",
            }
        ]
    blocks: list[dict[str, Any]] = []
    if message.content.strip():
        blocks.append({"type": "text", "text": message.content})
    blocks.extend(
        {"type": "tool_use", "id": _tool_id(c.id), "name": c.name, "input": c.arguments}
        for c in message.tool_calls
    )
    return blocks


def messages(request_messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """Neutral messages as alternating user/assistant turns of content blocks."""
    wire: list[dict[str, Any]] = []
    for message in request_messages:
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    if wire:
        last = wire[-1]["content"][-1]
        wire[-1]["content"][-1] = {**last, "cache_control": CACHE}
    return wire


def payload(model: str, request: Request) -> dict[str, Any]:
    """The request body for ``/v1/messages``."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": messages(request.messages),
    }
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": CACHE}]
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
    return body


def _usage(raw: Any) -> Usage | None:
    """Input counts everything the prompt held: fresh, cache-written and cache-read tokens."""
    if not isinstance(raw, dict):
        return None
    read = int(raw.get("cache_read_input_tokens") or 0)
    written = int(raw.get("cache_creation_input_tokens") or 0)
    return Usage(
        input_tokens=int(raw.get("input_tokens") or 0) + read + written,
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_tokens=read,
    )


def parse(body: dict[str, Any]) -> Reply:
    """A Messages response as a neutral Reply; thinking blocks are not part of the text."""
    content = body.get("content") or []
    text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
    calls = tuple(
        ToolCall(id=str(b.get("id")), name=str(b.get("name")), arguments=b.get("input") or {})
        for b in content
        if b.get("type") == "tool_use"
    )
    stop = STOP.get(str(body.get("stop_reason") or "end_turn"), "end")
    if calls:
        stop = "tool_use"
    return Reply(text=text, tool_calls=calls, stop_reason=stop, usage=_usage(body.get("usage")))


class Fold:
    """The events of one streamed message, folded into a non-streaming Messages body.

    ``message_start`` brings the input usage, each block grows by its deltas (text, or the
    tool input as JSON pieces parsed at the end), ``message_delta`` brings the stop reason
    and the output count (a running total, so the last one stands).
    """

    def __init__(self, watch: Watch | None) -> None:
        self.watch = watch
        self.message: dict[str, Any] = {}
        self.usage: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.inputs: dict[int, list[str]] = {}

    def read(self, stream: Iterator[Event]) -> dict[str, Any]:
        """The whole message, once ``message_stop`` arrives; ``Broken`` if it never does."""
        for event in stream:
            data = event_json(event.data)
            kind = data.get("type") or event.name
            if kind == "message_stop":
                return self.body()
            if kind == "error":
                raise Broken("the stream carried an error", _stream_failure(data.get("error")))
            self.add(kind, data)
        raise Broken("the stream ended before message_stop")

    def add(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "message_start":
            self.message = data.get("message") or {}
            self.usage = dict(self.message.get("usage") or {})
        elif kind == "content_block_start":
            self.blocks[data.get("index", len(self.blocks))] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(data.get("index", 0), data.get("delta") or {})
        elif kind == "message_delta":
            self.message = {**self.message, **(data.get("delta") or {})}
            self.usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})

    def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks.setdefault(index, {"type": "text", "text": ""})
        if delta.get("type") == "text_delta":
            piece = delta.get("text") or ""
            block["text"] = block.get("text", "") + piece
            if self.watch is not None and piece:
                self.watch.text(piece)
        elif delta.get("type") == "input_json_delta":
            self.inputs.setdefault(index, []).append(delta.get("partial_json") or "")

    def body(self) -> dict[str, Any]:
        content = []
        for index, block in sorted(self.blocks.items()):
            if block.get("type") == "tool_use" and index in self.inputs:
                block = {**block, "input": _input("".join(self.inputs[index]))}
            content.append(block)
        return {**self.message, "content": content, "usage": self.usage}


def _input(raw: str) -> Any:
    """A tool's input from its JSON pieces; an empty input is ``{}``."""
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        raise Broken(f"a tool input that is not JSON: {raw[:120]!r}") from None


def _stream_failure(error: Any) -> Failure:
    """An ``error`` event as the failure its HTTP status would have been (overloaded: 529)."""
    fields = error if isinstance(error, dict) else {"message": str(error)}
    kind = str(fields.get("type") or "")
    message = str(fields.get("message") or kind or "an error event")
    return Failure(ERROR_STATUS.get(kind, 500), message, kind, "", None)


class AnthropicMessages:
    """A Claude model behind the Messages API (or any server that speaks it)."""

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        headers: dict[str, str] | None = None,
        policy: RetryPolicy | None = None,
        stream: bool = True,
    ) -> None:
        self.name = model
        self.stream = stream
        base = base_url.rstrip("/")
        self.base_url = base if base.endswith("/v1") else base + "/v1"
        # No key: the caller's headers carry the credentials (a login's Authorization).
        wire_headers = {"x-api-key": api_key} if api_key else {}
        wire_headers.update({"anthropic-version": API_VERSION, **(headers or {})})
        self.transport = Transport("anthropic", wire_headers, policy or RetryPolicy())

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        url = self.base_url + "/messages"
        return ask(self, url, payload(self.name, request), Fold, parse, watch)

    def check(self) -> None:
        """Fail before any turn when the server cannot be reached or refuses the key."""
        self.transport.probe(self.base_url + "/models")
