"""The OpenAI Chat Completions wire format: OpenAI and every compatible server.

vLLM, llama.cpp, Ollama, LM Studio and OpenRouter speak it too, so a local model is one
``--base-url`` away. A key is required only for OpenAI's own endpoint.
"""

from __future__ import annotations

import json
from typing import Any

from vybe.llm.base import Message, Reply, Request, StopReason, ToolCall, Usage
from vybe.llm.http import RetryPolicy, Transport

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
            id=str(c.get("id") or f"call_{i}"),
            name=str((c.get("function") or {}).get("name") or ""),
            arguments=_arguments((c.get("function") or {}).get("arguments")),
        )
        for i, c in enumerate(message.get("tool_calls") or [])
    )
    stop = FINISH.get(str(choice.get("finish_reason") or "stop"), "end")
    if calls:
        stop = "tool_use"
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    return Reply(text=text, tool_calls=calls, stop_reason=stop, usage=_usage(body.get("usage")))


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
    ) -> None:
        self.name = model
        self.base_url = base_url.rstrip("/")
        official = "api.openai.com" in self.base_url
        self.max_tokens_field = "max_completion_tokens" if official else "max_tokens"
        wire_headers = dict(headers or {})
        if api_key:
            wire_headers["Authorization"] = f"Bearer {api_key}"
        self.transport = Transport("openai", wire_headers, policy or RetryPolicy())

    def complete(self, request: Request) -> Reply:
        body = payload(self.name, request, self.max_tokens_field)
        return parse(self.transport.post(self.base_url + "/chat/completions", body))

    def check(self) -> None:
        """Fail before any turn when the server cannot be reached or refuses the key."""
        self.transport.probe(self.base_url + "/models")
