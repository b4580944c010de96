"""The Anthropic Messages wire format: system at top level, content blocks, tool_use/result.

Consecutive messages of one role are merged (tool results travel in a user message), empty
text blocks are left out (the API refuses them), and the system prompt and the newest
message carry cache breakpoints so a long session reads its prefix from the cache.
"""

from __future__ import annotations

import re
from typing import Any

from vybe.llm.base import Message, Reply, Request, StopReason, ToolCall, Usage
from vybe.llm.http import RetryPolicy, Transport

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
    ) -> None:
        self.name = model
        base = base_url.rstrip("/")
        self.base_url = base if base.endswith("/v1") else base + "/v1"
        wire_headers = {"x-api-key": api_key, "anthropic-version": API_VERSION}
        wire_headers.update(headers or {})
        self.transport = Transport("anthropic", wire_headers, policy or RetryPolicy())

    def complete(self, request: Request) -> Reply:
        body = payload(self.name, request)
        return parse(self.transport.post(self.base_url + "/messages", body))

    def check(self) -> None:
        """Fail before any turn when the server cannot be reached or refuses the key."""
        self.transport.probe(self.base_url + "/models")
