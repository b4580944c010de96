"""A fake server's brain: wire requests back to neutral ones, answered by a neutral model."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.servers import (
    Received,
    Response,
    anthropic_reply,
    openai_reply,
    responses_reply,
)
from vybe.llm.base import Message, Model, Request, ToolCall


def from_openai(body: dict[str, Any]) -> Request:
    system, messages = "", []
    for m in body["messages"]:
        if m["role"] == "system":
            system = m["content"]
        elif m["role"] == "tool":
            messages.append(Message("tool", m["content"], tool_call_id=m["tool_call_id"]))
        else:
            calls = tuple(
                ToolCall(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                for c in m.get("tool_calls") or ()
            )
            messages.append(Message(m["role"], m["content"] or "", calls))
    return Request(system, tuple(messages), max_tokens=body.get("max_tokens", 0))


def from_anthropic(body: dict[str, Any]) -> Request:
    messages = []
    for m in body["messages"]:
        blocks = m["content"]
        if m["role"] == "assistant":
            text = "\n".join(b["text"] for b in blocks if b["type"] == "text")
            calls = tuple(
                ToolCall(b["id"], b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"
            )
            messages.append(Message("assistant", text, calls))
            continue
        for b in blocks:
            if b["type"] == "tool_result":
                messages.append(Message("tool", b["content"], tool_call_id=b["tool_use_id"]))
            else:
                messages.append(Message("user", b["text"]))
    system = "".join(b["text"] for b in body.get("system", ()))
    return Request(system, tuple(messages), max_tokens=body["max_tokens"])


def from_responses(body: dict[str, Any]) -> Request:
    messages: list[Message] = []
    for item in body["input"]:
        if item["type"] == "function_call":
            call = ToolCall(item["call_id"], item["name"], json.loads(item["arguments"]))
            last = messages[-1] if messages and messages[-1].role == "assistant" else None
            if last is not None:
                messages[-1] = Message("assistant", last.content, (*last.tool_calls, call))
            else:
                messages.append(Message("assistant", "", (call,)))
        elif item["type"] == "function_call_output":
            messages.append(Message("tool", item["output"], tool_call_id=item["call_id"]))
        elif item.get("role") in ("user", "assistant"):
            text = "".join(p.get("text", "") for p in item["content"])
            messages.append(Message(item["role"], text))
    return Request(body.get("instructions", ""), tuple(messages), max_tokens=0)


def from_gemini(body: dict[str, Any]) -> Request:
    messages: list[Message] = []
    for content in body["contents"]:
        parts = content["parts"]
        if content["role"] == "model":
            text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
            calls = tuple(
                ToolCall(
                    p["functionCall"]["id"], p["functionCall"]["name"], p["functionCall"]["args"]
                )
                for p in parts
                if "functionCall" in p
            )
            messages.append(Message("assistant", text, calls))
            continue
        for part in parts:
            if "functionResponse" in part:
                result = part["functionResponse"]
                messages.append(
                    Message("tool", result["response"]["output"], tool_call_id=result["id"])
                )
            else:
                messages.append(Message("user", part.get("text", "")))
    system = "".join(p["text"] for p in body.get("systemInstruction", {}).get("parts", ()))
    return Request(system, tuple(messages), max_tokens=0)


PARSERS = {
    "openai": from_openai,
    "anthropic": from_anthropic,
    "responses": from_responses,
    "gemini": from_gemini,
}


def gemini_reply(text: str, calls: list, usage: tuple[int, int, int]) -> Response:
    """A Gemini answer, whole (the adapter takes a whole body to a streamed ask too)."""
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    parts += [{"functionCall": {"id": i, "name": n, "args": a}} for i, n, a in calls]
    content = {"role": "model", "parts": parts or [{"text": ""}]}
    tokens = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1]}
    candidate = {"content": content, "finishReason": "STOP"}
    return Response(body={"candidates": [candidate], "usageMetadata": tokens})


BUILDERS = {
    "openai": openai_reply,
    "anthropic": anthropic_reply,
    "responses": responses_reply,
    "gemini": gemini_reply,
}


def serve(model: Model, wire: str = "openai") -> Any:
    """A responder that answers each POST with what ``model`` replies to it."""

    def respond(received: Received) -> Response:
        reply = model.complete(PARSERS[wire](received.body))
        calls = [(c.id, c.name, c.arguments) for c in reply.tool_calls]
        usage = (
            (reply.usage.input_tokens, reply.usage.output_tokens, 0) if reply.usage else (1, 1, 0)
        )
        return BUILDERS[wire](reply.text, calls, usage)

    return respond


def text_of(received: Received) -> str:
    """Everything a request carried, as one string, for assertions."""
    return json.dumps(received.body, ensure_ascii=False)
