"""The OpenAI Chat Completions wire format: OpenAI and every compatible server.

vLLM, llama.cpp, Ollama, LM Studio and OpenRouter speak it too, so a local model is one
``--base-url`` away. A key is required only for OpenAI's own endpoint.

Replies stream by default (``"stream": true``): the chunks are folded back into the body the
non-streaming call returns and parsed by the same ``parse``, so both give the same Reply.
Usage is asked for with ``stream_options``; a server that refuses the option is asked again
without it, and one that sends no usage leaves the engine's estimate standing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from vybe.clock import new_id
from vybe.errors import ModelError
from vybe.llm.base import Message, Reply, Request, StopReason, ToolCall, Usage, Watch, shown
from vybe.llm.http import Broken, Failure, NotStreamed, RetryPolicy, Transport, event_json
from vybe.llm.sse import Event

DEFAULT_BASE_URL = "https://api.openai.com/v1"
FINISH: dict[str, StopReason] = {
    "stop": "end",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "length",
    "content_filter": "refusal",
}


def _message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments, ensure_ascii=False),
                },
            }
            for call in message.tool_calls
        ]
    return wire


def payload(model: str, request: Request, max_tokens_field: str) -> dict[str, Any]:
    """The request body for ``/chat/completions``."""
    messages = [{"role": "system", "content": request.system}] if request.system else []
    body: dict[str, Any] = {
        "model": model,
        "messages": messages + [_message(m) for m in request.messages],
        max_tokens_field: request.max_tokens,
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in request.tools
        ]
    return body


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"_raw": raw}
    return parsed if isinstance(parsed, dict) else {"_raw": raw}


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    details = raw.get("prompt_tokens_details") or {}
    cached = details.get("cached_tokens") or raw.get("prompt_cache_hit_tokens") or 0
    return Usage(
        input_tokens=int(raw.get("prompt_tokens") or 0),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_tokens=int(cached),
    )


def parse(body: dict[str, Any]) -> Reply:
    """A Chat Completions response as a neutral Reply."""
    choices = body.get("choices") or [{}]
    choice = choices[0]
    message = choice.get("message") or {}
    calls = tuple(
        ToolCall(
            # A server that sends no id (some local ones) gets a fresh one: ids key the
            # results, and the runner's request ids, across the whole session.
            id=str(c.get("id") or new_id("call")),
            name=str((c.get("function") or {}).get("name") or ""),
            arguments=_arguments((c.get("function") or {}).get("arguments")),
        )
        for c in message.get("tool_calls") or []
    )
    stop = FINISH.get(str(choice.get("finish_reason") or "stop"), "end")
    if calls:
        stop = "tool_use"
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    return Reply(text=text, tool_calls=calls, stop_reason=stop, usage=_usage(body.get("usage")))


class Fold:
    """The chunks of one streamed completion, folded into a non-streaming response body.

    A tool call's first fragment names its id and function, later ones add pieces of its
    arguments. Fragments find their call by ``index``; a fragment with an id other than its
    call's starts a new call (Ollama numbers every call 0), and one without an index belongs
    to the newest call unless its id says otherwise (Gemini sends no index).
    """

    def __init__(self, watch: Watch | None) -> None:
        self.watch = watch
        self.text: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self.by_index: dict[Any, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None

    def read(self, stream: Iterator[Event]) -> dict[str, Any]:
        """The whole body, once ``[DONE]`` arrives; ``Broken`` if the stream stops before."""
        for event in stream:
            if event.data.strip() == "[DONE]":
                return self.body()
            self.add(_chunk(event.data))
        raise Broken("the stream ended before [DONE]")

    def add(self, chunk: dict[str, Any]) -> None:
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            delta = delta if isinstance(delta, dict) else {}
            piece = delta.get("content")
            if isinstance(piece, str) and piece:
                self.text.append(piece)
                if self.watch is not None:
                    self.watch.text(piece)
            for fragment in delta.get("tool_calls") or ():
                if isinstance(fragment, dict):
                    self._fragment(fragment)
            self.finish = choice.get("finish_reason") or self.finish

    def _call_for(self, fragment: dict[str, Any]) -> dict[str, Any]:
        index, new_id = fragment.get("index"), fragment.get("id")
        newest = self.calls[-1] if self.calls else None
        call = self.by_index.get(index) if index is not None else newest
        if call is None or (new_id and call["id"] and new_id != call["id"]):
            call = {"id": None, "name": "", "arguments": []}
            self.calls.append(call)
        if index is not None:
            self.by_index[index] = call
        return call

    def _fragment(self, fragment: dict[str, Any]) -> None:
        call = self._call_for(fragment)
        function = fragment.get("function")
        function = function if isinstance(function, dict) else {}
        call["id"] = call["id"] or fragment.get("id")
        call["name"] = call["name"] or function.get("name") or ""
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # some servers send the object, not its JSON text
            call["arguments"] = arguments
        elif isinstance(arguments, str) and isinstance(call["arguments"], list):
            call["arguments"].append(arguments)

    def body(self) -> dict[str, Any]:
        calls = [
            {
                "id": c["id"],
                "function": {
                    "name": c["name"],
                    "arguments": c["arguments"]
                    if isinstance(c["arguments"], dict)
                    else "".join(c["arguments"]),
                },
            }
            for c in self.calls
        ]
        message = {"content": "".join(self.text), "tool_calls": calls}
        choice = {"message": message, "finish_reason": self.finish}
        return {"choices": [choice], "usage": self.usage}


def _chunk(data: str) -> dict[str, Any]:
    """One chunk's JSON; an ``error`` object inside a 200 stream is judged like an answer."""
    chunk = event_json(data)
    error = chunk.get("error")
    if error:
        raise Broken("the stream carried an error", _stream_failure(error))
    return chunk


def _stream_failure(error: Any) -> Failure:
    """vLLM and others report a failure mid-stream with the error's HTTP code, if any."""
    fields = error if isinstance(error, dict) else {"message": str(error)}
    code = fields.get("code")
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    return Failure(
        status,
        str(fields.get("message") or error),
        str(fields.get("type") or ""),
        "" if isinstance(code, int) else str(code or ""),
        None,
    )


def _options_refused(error: ModelError) -> bool:
    """An older server refused ``stream_options`` as an unknown field."""
    return error.context.get("status") in (400, 422) and "stream_options" in error.message


class OpenAICompatible:
    """A chat model behind a ``/chat/completions`` endpoint."""

    provider = "openai"

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
        self.ask_usage = True
        self.base_url = base_url.rstrip("/")
        official = "api.openai.com" in self.base_url
        self.max_tokens_field = "max_completion_tokens" if official else "max_tokens"
        wire_headers = dict(headers or {})
        if api_key:
            wire_headers["Authorization"] = f"Bearer {api_key}"
        self.transport = Transport("openai", wire_headers, policy or RetryPolicy())

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        body = payload(self.name, request, self.max_tokens_field)
        url = self.base_url + "/chat/completions"
        if self.stream:
            try:
                return parse(self._streamed(url, body, watch))
            except NotStreamed as whole:
                self.stream = False  # this server answers whole: ask it so from now on
                return shown(parse(whole.body), watch)
        return shown(parse(self.transport.post(url, body, watch)), watch)

    def _streamed(self, url: str, body: dict[str, Any], watch: Watch | None) -> dict[str, Any]:
        """The streamed body; asks without ``stream_options`` from the first refusal on."""
        streaming = {**body, "stream": True}

        def read(stream: Iterator[Event]) -> dict[str, Any]:
            return Fold(watch).read(stream)  # a fresh fold for every attempt

        if self.ask_usage:
            try:
                options = {"stream_options": {"include_usage": True}}
                return self.transport.stream(url, {**streaming, **options}, read, watch)
            except ModelError as error:
                if not _options_refused(error):
                    raise
                self.ask_usage = False
        return self.transport.stream(url, streaming, read, watch)

    def check(self) -> None:
        """Fail before any turn when the server cannot be reached or refuses the key."""
        self.transport.probe(self.base_url + "/models")
