"""The Gemini API wire (``POST …/models/{model}:generateContent``, streamed as
``:streamGenerateContent?alt=sse``), the one Gemini CLI speaks.

A request is ``systemInstruction`` and ``contents``: ``user`` and ``model`` turns made of
parts (``text``; ``functionCall`` with its ``name`` and ``args`` from the model;
``functionResponse`` with its ``name`` and ``response`` on the user's side). A reply is the
first candidate's content; parts marked ``thought`` are the model's thinking, not its reply.
Streamed, every event is a whole response holding the next parts; the fold appends them, so
a stream cut short still says what came, and the last one carries ``finishReason`` and
``usageMetadata``. The stream is asked for by the URL, never by a field of the body.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from vybe.llm.base import Message, Reply, Request, StopReason, ToolCall, Usage, Watch, shown
from vybe.llm.http import NotStreamed, RetryPolicy, Transport, event_json
from vybe.llm.sse import Event

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
STOPS: dict[str, StopReason] = {"MAX_TOKENS": "length", "SAFETY": "refusal"}


def _parts(message: Message, names: dict[str, str]) -> list[dict[str, Any]]:
    if message.role == "tool":
        name = names.get(message.tool_call_id or "", "tool")
        response = {
            "id": message.tool_call_id,
            "name": name,
            "response": {"output": message.content},
        }
        return [{"functionResponse": response}]
    parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
    parts += [
        {"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}}
        for c in message.tool_calls
    ]
    return parts or [{"text": ""}]


def payload(request: Request) -> dict[str, Any]:
    """The request body for ``:generateContent`` (the model is named by the URL)."""
    names = {c.id: c.name for m in request.messages for c in m.tool_calls}
    contents: list[dict[str, Any]] = []
    for message in request.messages:
        role = "model" if message.role == "assistant" else "user"
        parts = _parts(message, names)
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"] += parts  # Gemini takes turns: results of one call together
        else:
            contents.append({"role": role, "parts": parts})
    body: dict[str, Any] = {
        "contents": contents,
        "generationConfig": {"maxOutputTokens": request.max_tokens},
    }
    if request.system:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    if request.tools:
        declared = [
            {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
            for t in request.tools
        ]
        body["tools"] = [{"functionDeclarations": declared}]
    return body


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    return Usage(
        input_tokens=int(raw.get("promptTokenCount") or 0),
        output_tokens=int(raw.get("candidatesTokenCount") or 0),
        cache_read_tokens=int(raw.get("cachedContentTokenCount") or 0),
    )


def _arguments(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def call_of(call: dict[str, Any], place: int) -> ToolCall:
    """A ``functionCall`` part as a call; one without an id is named by its place."""
    name = str(call.get("name"))
    return ToolCall(str(call.get("id") or f"{name}-{place}"), name, _arguments(call.get("args")))


def content_parts(content: Any) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def text_of(parts: list[dict[str, Any]]) -> str:
    """The text of parts, the model's thinking left out."""
    return "".join(str(p.get("text") or "") for p in parts if "text" in p and not p.get("thought"))


def calls_of(parts: list[dict[str, Any]]) -> tuple[ToolCall, ...]:
    found = [p["functionCall"] for p in parts if isinstance(p.get("functionCall"), dict)]
    return tuple(call_of(c, i) for i, c in enumerate(found))


def parse(body: dict[str, Any]) -> Reply:
    """The first candidate of a response as a neutral Reply."""
    candidates = [c for c in body.get("candidates") or () if isinstance(c, dict)]
    first = candidates[0] if candidates else {}
    parts = content_parts(first.get("content"))
    calls = calls_of(parts)
    stop = "tool_use" if calls else STOPS.get(str(first.get("finishReason") or ""), "end")
    return Reply(text_of(parts), calls, stop, _usage(body.get("usageMetadata")))


class Fold:
    """The events of one streamed response, folded into one response body."""

    def __init__(self, watch: Watch | None = None) -> None:
        self.watch = watch
        self.parts: list[dict[str, Any]] = []
        self.last: dict[str, Any] = {}
        self.finish: Any = None
        self.finished = False

    def read(self, stream: Iterator[Event]) -> dict[str, Any]:
        for event in stream:
            self.add(event_json(event.data))
        return self.body()

    def add(self, data: dict[str, Any]) -> None:
        self.last = data
        candidates = [c for c in data.get("candidates") or () if isinstance(c, dict)]
        first = candidates[0] if candidates else {}
        parts = content_parts(first.get("content"))
        self.parts += parts
        if self.watch is not None and (piece := text_of(parts)):
            self.watch.text(piece)
        if first.get("finishReason"):
            self.finish, self.finished = first["finishReason"], True

    def body(self) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": self.parts}}
        if self.finish:
            candidate["finishReason"] = self.finish
        return {**self.last, "candidates": [candidate]}


class Gemini:
    """A model behind the Gemini API (Google's, or any server that speaks it)."""

    provider = "gemini"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        headers: dict[str, str] | None = None,
        policy: RetryPolicy | None = None,
        stream: bool = True,
    ) -> None:
        self.name = model
        self.stream = stream
        self.base_url = base_url.rstrip("/")
        wire_headers = dict(headers or {})
        if api_key:
            wire_headers["x-goog-api-key"] = api_key
        self.transport = Transport("gemini", wire_headers, policy or RetryPolicy())

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        body = payload(request)
        where = f"{self.base_url}/models/{self.name}"
        if self.stream:
            url = where + ":streamGenerateContent?alt=sse"
            try:

                def read(stream: Iterator[Event]) -> dict[str, Any]:
                    return Fold(watch).read(stream)  # a fresh fold for every attempt

                return parse(self.transport.stream(url, body, read, watch))
            except NotStreamed as whole:
                self.stream = False  # this server answers whole: ask it so from now on
                return shown(parse(whole.body), watch)
        return shown(parse(self.transport.post(where + ":generateContent", body, watch)), watch)
