"""The OpenAI Responses wire format (``POST …/responses``), the only API Codex speaks.

A request is ``instructions`` and a list of ``input`` items: messages (``input_text`` from
the user, ``output_text`` from the assistant), ``function_call`` items and their
``function_call_output``. A reply is the ``output`` items of the response. Streamed, the
events end with ``response.completed`` carrying the whole response; the fold keeps each
``response.output_item.done`` and the text deltas so far, so a stream cut short still says
what came (the proxy's record of a cut reply).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from vybe.llm.base import Message, Reply, Request, StopReason, ToolCall, Usage, Watch
from vybe.llm.http import Broken, Failure, ask, event_json
from vybe.llm.openai_compat import OpenAICompatible, _arguments
from vybe.llm.sse import Event

DONE_EVENTS = frozenset({"response.completed", "response.incomplete"})
FAILED_EVENTS = frozenset({"response.failed", "error"})


def _items(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": message.content,
            }
        ]
    kind = "output_text" if message.role == "assistant" else "input_text"
    items: list[dict[str, Any]] = []
    if message.content or not message.tool_calls:
        content = [{"type": kind, "text": message.content}]
        items.append({"type": "message", "role": message.role, "content": content})
    items += [
        {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": json.dumps(call.arguments, ensure_ascii=False),
        }
        for call in message.tool_calls
    ]
    return items


def payload(model: str, request: Request) -> dict[str, Any]:
    """The request body for ``/responses`` (nothing stored on the server's side)."""
    body: dict[str, Any] = {
        "model": model,
        "input": [item for m in request.messages for item in _items(m)],
        "max_output_tokens": request.max_tokens,
        "store": False,
    }
    if request.system:
        body["instructions"] = request.system
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
            }
            for t in request.tools
        ]
    return body


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    details = raw.get("input_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else 0
    return Usage(
        input_tokens=int(raw.get("input_tokens") or 0),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_tokens=int(cached or 0),
    )


def item_text(item: dict[str, Any]) -> str:
    """The text of a message item: its text parts joined (refusals and images left out)."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(
        p.get("text") or ""
        for p in parts
        if isinstance(p, dict) and p.get("type") in ("output_text", "input_text", "text")
    )


def _call(item: dict[str, Any]) -> ToolCall:
    call_id = str(item.get("call_id") or item.get("id"))
    return ToolCall(call_id, str(item.get("name")), _arguments(item.get("arguments")))


def parse(body: dict[str, Any]) -> Reply:
    """A response's output items as a neutral Reply; reasoning items are not part of it."""
    output = [i for i in body.get("output") or () if isinstance(i, dict)]
    text = "".join(item_text(i) for i in output if i.get("type") == "message")
    calls = tuple(_call(i) for i in output if i.get("type") == "function_call")
    incomplete = body.get("status") == "incomplete"
    stop: StopReason = "tool_use" if calls else ("length" if incomplete else "end")
    return Reply(text=text, tool_calls=calls, stop_reason=stop, usage=_usage(body.get("usage")))


class Fold:
    """The events of one streamed response, folded into the response body.

    ``response.completed`` brings the whole response; until it comes, the items already done
    and the text of the one being written stand for it (``body``)."""

    def __init__(self, watch: Watch | None = None) -> None:
        self.watch = watch
        self.response: dict[str, Any] = {}
        self.done: dict[int, dict[str, Any]] = {}
        self.partial: dict[int, list[str]] = {}
        self.finished = False

    def read(self, stream: Iterator[Event]) -> dict[str, Any]:
        """The whole response, once it is completed; ``Broken`` if it never is."""
        for event in stream:
            data = event_json(event.data)
            self.add(str(data.get("type") or event.name), data)
            if self.finished:
                return self.body()
        raise Broken("the stream ended before response.completed")

    def add(self, kind: str, data: dict[str, Any]) -> None:
        if kind in FAILED_EVENTS:
            raise Broken("the stream carried an error", _stream_failure(data))
        index = data.get("output_index", 0)
        if kind == "response.output_text.delta":
            piece = data.get("delta") or ""
            self.partial.setdefault(index, []).append(piece)
            if self.watch is not None and piece:
                self.watch.text(piece)
        elif kind == "response.output_item.done" and isinstance(data.get("item"), dict):
            self.done[index] = data["item"]
        elif kind in DONE_EVENTS or kind == "response.created":
            response = data.get("response")
            self.response = response if isinstance(response, dict) else self.response
            self.finished = kind in DONE_EVENTS

    def body(self) -> dict[str, Any]:
        if self.finished and self.response.get("output"):
            return self.response
        output = dict(self.done)
        for index, pieces in self.partial.items():
            if index not in output:
                content = [{"type": "output_text", "text": "".join(pieces)}]
                output[index] = {"type": "message", "role": "assistant", "content": content}
        return {**self.response, "output": [output[i] for i in sorted(output)]}


def _stream_failure(data: dict[str, Any]) -> Failure:
    """A ``response.failed`` or ``error`` event as the failure it stands for."""
    response = data.get("response")
    error = response.get("error") if isinstance(response, dict) else data.get("error", data)
    fields = error if isinstance(error, dict) else {"message": str(error)}
    code = str(fields.get("code") or "")
    status = 429 if code == "rate_limit_exceeded" else 500
    return Failure(status, str(fields.get("message") or code or "an error event"), code, code, None)


class OpenAIResponses(OpenAICompatible):
    """A model behind a ``/responses`` endpoint (OpenAI's, or any server that speaks it)."""

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        url = self.base_url + "/responses"
        return ask(self, url, payload(self.name, request), Fold, parse, watch)
