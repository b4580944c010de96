"""The upstream's model as the proxy's own requests reach it (a checkpoint turn), with the
client's credentials, and a request body read and rewritten as the engine's neutral request.

The model is the adapter of the request's API (Anthropic Messages, Chat Completions, Gemini,
Responses) at the upstream's base URL, named as the client named it, sending the client's
own credentials headers. ``system_of`` and ``tools_of`` read what the engine needs of a
request; ``rewritten`` puts the engine's conversation into the client's body, every other
field (model, stream, tools, sampling) as the client sent it.
"""

from __future__ import annotations

import json
from typing import Any

from vybe.llm import anthropic, gemini, openai_compat, responses
from vybe.llm.anthropic import AnthropicMessages
from vybe.llm.base import Request, ToolSpec
from vybe.llm.gemini import Gemini
from vybe.llm.http import RetryPolicy
from vybe.llm.openai_compat import OpenAICompatible
from vybe.llm.responses import OpenAIResponses
from vybe.proxy import wire

# The client's headers the upstream knows it by, sent as the proxy's own requests' too.
PASSED_HEADERS = (
    "authorization",
    "x-api-key",
    "anthropic-version",
    "anthropic-beta",
    "x-goog-api-key",
)
PASSED_PREFIXES = ("openai-", "chatgpt-")
POLICY = RetryPolicy(attempts=2, base_delay=0.5)
Upstream = AnthropicMessages | Gemini | OpenAICompatible | OpenAIResponses


def credentials(headers: Any) -> dict[str, str]:
    return {
        k: v
        for k, v in headers.items()
        if k.lower() in PASSED_HEADERS or k.lower().startswith(PASSED_PREFIXES)
    }


def base_of(upstream: str, path: str) -> str:
    """The base URL the adapters append their endpoint to: the upstream and the request's
    path without its endpoint (``/v1/messages`` -> ``…/v1``)."""
    bare = path.split("?", 1)[0].rstrip("/")
    if wire.api_of(path) == wire.GEMINI:
        return upstream + bare.rsplit("/models/", 1)[0]
    for endpoint in ("/messages", "/chat/completions", "/responses"):
        if bare.endswith(endpoint):
            return upstream + bare.removesuffix(endpoint)
    return upstream + bare


def model_name(path: str, body: dict[str, Any]) -> str:
    """The model a request names: its body's ``model``, or Gemini's path (``models/<m>:…``)."""
    if wire.api_of(path) == wire.GEMINI:
        return path.split("?", 1)[0].rsplit("/models/", 1)[-1].split(":", 1)[0]
    return str(body.get("model") or "")


def model_for(api: str, base: str, name: str, headers: Any) -> Upstream:
    """The upstream's model, as the client asked for it, with the client's credentials.

    Its ``transport`` is the caller's to close once the turn is done: the connection it
    keeps for a next request would otherwise stay open until the garbage collector finds
    it, one more open file for each turn of a proxy that runs for days."""
    passed = credentials(headers)
    if api == wire.GEMINI:
        return Gemini(name, base_url=base, headers=passed, policy=POLICY)
    if api == wire.RESPONSES:
        return OpenAIResponses(name, base_url=base, headers=passed, policy=POLICY)
    if api == wire.CHAT:
        return OpenAICompatible(name, base_url=base, headers=passed, policy=POLICY)
    key = next((v for k, v in passed.items() if k.lower() == "x-api-key"), "")
    rest = {k: v for k, v in passed.items() if k.lower() != "x-api-key"}
    return AnthropicMessages(name, api_key=key, base_url=base, headers=rest, policy=POLICY)


def _texts(value: Any) -> str:
    if isinstance(value, list):
        return "\n\n".join(str(b.get("text", "")) for b in value if isinstance(b, dict))
    return str(value or "")


def system_of(api: str, body: dict[str, Any]) -> str:
    """The request's system prompt (Chat's system messages joined)."""
    if api == wire.RESPONSES:
        return str(body.get("instructions") or "")
    if api == wire.GEMINI:
        instruction = body.get("systemInstruction")
        return gemini.text_of(gemini.content_parts(instruction))
    if api == wire.CHAT:
        messages = body.get("messages")
        listed = messages if isinstance(messages, list) else []
        system = [m for m in listed if isinstance(m, dict) and m.get("role") == "system"]
        return "\n\n".join(_texts(m.get("content")) for m in system)
    return _texts(body.get("system"))


SCHEMA = {wire.ANTHROPIC: "input_schema", wire.GEMINI: "parametersJsonSchema"}


def tools_of(api: str, body: dict[str, Any]) -> tuple[ToolSpec, ...]:
    """The request's function tools as the engine counts and offers them."""
    found = []
    listed = body.get("tools") or ()
    if api == wire.GEMINI:
        declared = [t.get("functionDeclarations") for t in listed if isinstance(t, dict)]
        listed = [d for group in declared if isinstance(group, list) for d in group]
    for tool in listed:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if api == wire.CHAT else tool
        if not isinstance(spec, dict) or not spec.get("name"):
            continue
        schema = spec.get(SCHEMA.get(api, "parameters")) or spec.get("parameters")
        found.append(
            ToolSpec(
                str(spec["name"]),
                str(spec.get("description") or ""),
                schema if isinstance(schema, dict) else {"type": "object"},
            )
        )
    return tuple(found)


def rewritten(api: str, body: dict[str, Any], request: Request) -> bytes:
    """The client's body with the engine's conversation in place of its own."""
    name = str(body.get("model") or "")
    if api == wire.GEMINI:
        made = gemini.payload(request)
        out = {**body, "contents": made["contents"]}
        if "systemInstruction" in made:
            out["systemInstruction"] = made["systemInstruction"]
    elif api == wire.CHAT:
        messages = openai_compat.payload(name, request, "max_tokens")["messages"]
        out = {**body, "messages": messages}
    elif api == wire.RESPONSES:
        made = responses.payload(name, request)
        out = {**body, "input": made["input"], "instructions": made.get("instructions", "")}
    else:
        made = anthropic.payload(name, request)
        out = {**body, "messages": made["messages"]}
        if "system" in made:
            out["system"] = made["system"]
    return json.dumps(out, ensure_ascii=False).encode()
