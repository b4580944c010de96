"""The client's compaction becomes a vybe checkpoint.

Which request is a compaction is decided from what the pinned clients send
(tests/fixtures/proxy holds each one's real request, tests/proxy/test_compaction.py the checks):

- Claude Code (2.1.197, /compact and auto-compaction): the last text block of the last user
  message ends with ``REMINDER`` below (2.1.197 adds "Tool calls will be rejected and you
  will fail the task." after it: the REMINDER within its last ``TAIL`` characters);
- Codex (0.171): ``client_metadata["x-codex-turn-metadata"]`` is a JSON string whose
  ``request_kind`` is ``"compaction"``, or the last input item holds ``CODEX_MARK``;
- Aider (0.86.2): its weak model's summary of older history, a system message that starts
  with its summarize prompt and one user message (vybe.proxy.scaffolding);
- Gemini CLI (0.61.0, ``/compress`` and its automatic compression): a system instruction
  starting ``GEMINI_SYSTEM`` and a last user part ending ``GEMINI_ASK``; the request that
  follows it, asking to check the summary (``GEMINI_VERIFY``), gets the same checkpoint;
- OpenCode (1.18.33, its automatic compaction, on any wire it speaks): a system prompt
  starting ``OPENCODE_SYSTEM`` and a last user message starting ``OPENCODE_OPEN`` (the older
  turns as text) and ending ``OPENCODE_END`` (its template's last rule).

Anything else is no compaction, and is relayed untouched. A compaction is answered by the
engine's checkpoint turn on the session's record, against the same upstream model with the
client's own credentials (mind.md / memo.md, the checks, one repair, the fallbacks); the
reply, in the shape the client reads, is the checkpoint as the engine shows it to a model
(its recollection: the MIND with its Mission, the person's ticked messages verbatim from
the record, the NOW, where to search the whole record). Claude Code keeps the part inside
``<summary>``; Codex keeps the whole text, Aider too (after its own first line, as the
summary of older history it sends from then on, which names the session), OpenCode too (as
the reply to its "What did we do so far?", in the shape of the wire it asked on).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from vybe.context.assemble import load, messages
from vybe.context.budget import ModelLimits, compute, cut
from vybe.context.engine import Engine
from vybe.context.record import Record
from vybe.llm import gemini
from vybe.llm.base import Message, Model
from vybe.llm.models import resolve
from vybe.llm.responses import item_text
from vybe.proxy import scaffolding, upstream, wire
from vybe.proxy.relay import Answer

REMINDER = (
    "REMINDER: Do NOT call any tools. Respond with plain text only — an <analysis> block "
    "followed by a <summary> block."
)
CODEX_MARK = "CONTEXT CHECKPOINT COMPACTION"
CLAUDE, CODEX, AIDER, GEMINI = "claude", "codex", scaffolding.AIDER, "gemini"
OPENCODE = scaffolding.OPENCODE
# The wire each client's compaction comes on (OpenCode's: the one it asked on).
API = {CLAUDE: wire.ANTHROPIC, CODEX: wire.RESPONSES, AIDER: wire.CHAT, GEMINI: wire.GEMINI}
# OpenCode 1.18.33's compaction: its summarization agent, then the older turns and the ask.
OPENCODE_SYSTEM = (
    "You are a context summarization agent. You are given a conversation between a user and"
    " an agent."
)
OPENCODE_OPEN = "Here is the conversation so far:\n\n<conversation>\n"
OPENCODE_END = "- Do not mention the summary process or that context was compacted."
# Gemini CLI 0.61's compression: its compressor's system instruction, then the history and
# the ask; then a second request, the summary it got and the ask to check it.
GEMINI_SYSTEM = (
    "You are a specialized system component responsible for distilling chat history into a"
    " structured XML <state_snapshot>."
)
GEMINI_ASK = "First, reason in your scratchpad. Then, generate the updated <state_snapshot>."
GEMINI_VERIFY = "Critically evaluate the <state_snapshot> you just generated."
TAIL = 300
PIECE = 400  # characters of the summary in each streamed delta
LATEST_EACH = 2_000
LATEST = "# The newest turn, as it was (after the checkpoint above)"


def _last_user_text(messages: Any) -> str:
    users = [m for m in messages or () if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        return ""
    content = users[-1].get("content")
    if isinstance(content, str):
        return content
    texts = [b for b in content or () if isinstance(b, dict) and b.get("type") == "text"]
    return str(texts[-1].get("text", "")) if texts else ""


def _codex_kind(body: dict[str, Any]) -> str | None:
    metadata = body.get("client_metadata")
    raw = metadata.get("x-codex-turn-metadata") if isinstance(metadata, dict) else None
    try:
        turn = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    kind = turn.get("request_kind") if isinstance(turn, dict) else None
    return kind if isinstance(kind, str) else None


def _last_input_text(body: dict[str, Any]) -> str:
    items = body.get("input")
    if isinstance(items, str):
        return items
    last = items[-1] if isinstance(items, list) and items else None
    return item_text(last) if isinstance(last, dict) else ""


def client_of(api: str, path: str, body: dict[str, Any]) -> str | None:
    """Whose compaction request this is (``claude``, ``codex``, ``aider``, ``gemini``,
    ``opencode``), or None for any other."""
    if not wire.is_generation(path):
        return None
    if api != wire.GEMINI and _opencode_compacting(api, body):
        return OPENCODE
    if api == wire.CHAT:
        return AIDER if scaffolding.is_summary_request(body.get("messages")) else None
    if api == wire.GEMINI:
        return GEMINI if _gemini_compressing(body) else None
    if api == wire.ANTHROPIC:
        last = _last_user_text(body.get("messages"))
        return CLAUDE if REMINDER in last.rstrip()[-(len(REMINDER) + TAIL) :] else None
    compacting = _codex_kind(body) == "compaction" or CODEX_MARK in _last_input_text(body)
    return CODEX if api == wire.RESPONSES and compacting else None


def summarizing(body: dict[str, Any]) -> bool:
    """Whether a request is OpenCode's summarization agent's (a compaction, recognised or
    not: never a turn of the session)."""
    return any(t.lstrip().startswith(OPENCODE_SYSTEM) for t in scaffolding.systems(body))


def _opencode_compacting(api: str, body: dict[str, Any]) -> bool:
    if not summarizing(body):
        return False
    messages = body.get("messages")
    last = _last_input_text(body) if api == wire.RESPONSES else _last_user_text(messages)
    return last.startswith(OPENCODE_OPEN) and last.rstrip().endswith(OPENCODE_END)


def api_of(client: str, api: str) -> str:
    """The wire a client's compaction is answered on, and its checkpoint turn asked on."""
    return API.get(client, api)


def _gemini_last(body: dict[str, Any]) -> str:
    contents = body.get("contents")
    last = contents[-1] if isinstance(contents, list) and contents else None
    return gemini.text_of(gemini.content_parts(last)) if isinstance(last, dict) else ""


def _gemini_compressing(body: dict[str, Any]) -> bool:
    system = gemini.text_of(gemini.content_parts(body.get("systemInstruction")))
    last = _gemini_last(body)
    asked = last.rstrip().endswith(GEMINI_ASK) or last.startswith(GEMINI_VERIFY)
    return system.lstrip().startswith(GEMINI_SYSTEM) and asked


def _again(client: str, body: dict[str, Any]) -> bool:
    """Whether the request asks again about vybe's own checkpoint: Aider summarising it
    again, Gemini CLI asking to check it (answered with it again, no turn)."""
    if client == AIDER:
        return scaffolding.resummarising(body.get("messages"))
    return client == GEMINI and _gemini_last(body).startswith(GEMINI_VERIFY)


def without_prompt(client: str, body: dict[str, Any]) -> dict[str, Any]:
    """The request as the conversation it carries, the compaction prompt taken out (what is
    new in it is recorded before the checkpoint): Codex's last input, or the last text block
    of Claude's last user message (a system message may follow it); Aider's summary request,
    the turns it holds as text (what is new in them, the output of the commands it ran after
    the last reply, is in no request before it); OpenCode's carries no conversation of its
    own (its older turns, as one text, are recorded)."""
    if client == AIDER:
        return {**body, "messages": scaffolding.summarised_turns(body.get("messages"))}
    if client == OPENCODE:
        return {**body, "messages": [], **({"input": []} if "input" in body else {})}
    if client == GEMINI:  # the ask; when checking, the summary it got before it too
        contents = body.get("contents")
        listed = contents if isinstance(contents, list) else []
        return {**body, "contents": listed[: -2 if _again(client, body) else -1]}
    if client == CODEX:
        items = body.get("input")
        return {**body, "input": items[:-1] if isinstance(items, list) else []}
    messages = list(body.get("messages") or ())
    users = [i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        return body
    last = messages[users[-1]]
    content = last.get("content")
    if not isinstance(content, list):
        del messages[users[-1]]
        return {**body, "messages": messages}
    texts = [i for i, b in enumerate(content) if isinstance(b, dict) and b.get("type") == "text"]
    kept = [b for i, b in enumerate(content) if not texts or i != texts[-1]]
    messages[users[-1]] = {**last, "content": kept}
    return {**body, "messages": messages}


def checkpoint(
    record: Record, session_id: str, client: str, model: Model, body: dict[str, Any]
) -> str | None:
    """The session's checkpoint, or None when the turn failed. The client keeps nothing but
    the summary: everything but the newest turn moves into the checkpoint, and that turn
    follows its recollection word for word (each message within ``LATEST_EACH`` tokens).
    Asked again about vybe's own checkpoint (``_again``), it is given again, with no turn."""
    limits = ModelLimits(window=resolve(model.name).window)
    if not _again(client, body):
        engine = Engine(record, model, limits)
        # Aider's and Gemini CLI's requests have their summariser's system prompt, not theirs.
        own = client in (CLAUDE, CODEX)
        system = upstream.system_of(API[client], body) if own else ""
        attempt = engine.checkpoint_now(session_id, system, keep=0)
        if attempt.outcome != "accepted":
            return None
    budget = compute(limits)
    view = load(record, session_id)
    latest = [_shown(m) for m in messages(view, budget)[1:]]
    if not latest:
        return view.recollection(budget)
    return view.recollection(budget) + "\n\n" + LATEST + "\n\n" + "\n\n".join(latest)


def _shown(message: Message) -> str:
    calls = "".join(
        f"\n[call {c.name} {json.dumps(c.arguments, ensure_ascii=False)}]"
        for c in message.tool_calls
    )
    return f"[{message.role}]\n{cut(message.content, LATEST_EACH)}{calls}"


def _named(session_id: str) -> str:
    return f"vybe checkpoint of session {session_id}, taken from its record."


def claude_text(recollection: str, session_id: str) -> str:
    return f"<analysis>\n{_named(session_id)}\n</analysis>\n\n<summary>\n{recollection}\n</summary>"


def _completion(text: str, model: str) -> dict[str, Any]:
    """The Chat Completions reply that carries the summary."""
    message = {"role": "assistant", "content": text}
    usage = {"prompt_tokens": 0, "completion_tokens": len(text) // 4}
    return {
        "id": "chatcmpl-vybe-checkpoint",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {**usage, "total_tokens": len(text) // 4},
    }


def _candidate(text: str) -> dict[str, Any]:
    """The Gemini response that carries the summary."""
    content = {"role": "model", "parts": [{"text": text}]}
    usage = {"promptTokenCount": 0, "candidatesTokenCount": len(text) // 4}
    return {
        "candidates": [{"content": content, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {**usage, "totalTokenCount": len(text) // 4},
    }


def _gemini_events(response: dict[str, Any]) -> Iterator[bytes]:
    text = response["candidates"][0]["content"]["parts"][0]["text"]
    pieces = _pieces(text)
    for number, piece in enumerate(pieces, 1):
        event: dict[str, Any] = {
            "candidates": [{"content": {"role": "model", "parts": [{"text": piece}]}}]
        }
        if number == len(pieces):
            event = {**response, "candidates": [{**event["candidates"][0], "finishReason": "STOP"}]}
        yield f"data: {json.dumps(event, ensure_ascii=False)}\r\n\r\n".encode()


def _chat_events(completion: dict[str, Any]) -> Iterator[bytes]:
    text = completion["choices"][0]["message"]["content"]
    base = {"id": completion["id"], "object": "chat.completion.chunk", "model": completion["model"]}
    opened = {"role": "assistant", "content": ""}
    deltas = [opened, *({"content": piece} for piece in _pieces(text))]
    for delta in deltas:
        chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        yield f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()
    last = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    yield f"data: {json.dumps({**last, 'usage': completion['usage']})}\n\ndata: [DONE]\n\n".encode()


def _event(kind: str, **fields: Any) -> bytes:
    data = json.dumps({"type": kind, **fields}, ensure_ascii=False)
    return f"event: {kind}\ndata: {data}\n\n".encode()


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def _message(text: str, model: str) -> dict[str, Any]:
    """The Messages reply that carries the summary."""
    return {
        "id": "msg_vybe_checkpoint",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": len(text) // 4},
    }


def _response(text: str, model: str) -> dict[str, Any]:
    """The Responses reply that carries the summary: one message item."""
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {
        "id": "msg_vybe_checkpoint",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [part],
    }
    usage = {
        "input_tokens": 0,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": len(text) // 4,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": len(text) // 4,
    }
    return {
        "id": "resp_vybe_checkpoint",
        "object": "response",
        "model": model,
        "status": "completed",
        "output": [item],
        "usage": usage,
    }


def _claude_events(message: dict[str, Any]) -> Iterator[bytes]:
    text = message["content"][0]["text"]
    started = {**message, "content": [], "stop_reason": None}
    yield _event("message_start", message=started)
    yield _event("content_block_start", index=0, content_block={"type": "text", "text": ""})
    for piece in _pieces(text):
        yield _event("content_block_delta", index=0, delta={"type": "text_delta", "text": piece})
    yield _event("content_block_stop", index=0)
    stop = {"stop_reason": "end_turn", "stop_sequence": None}
    yield _event("message_delta", delta=stop, usage={"output_tokens": len(text) // 4})
    yield _event("message_stop")


def _codex_events(response: dict[str, Any]) -> Iterator[bytes]:
    item = response["output"][0]
    part = item["content"][0]
    text = part["text"]
    yield _event("response.created", response={**response, "status": "in_progress", "output": []})
    opened = {**item, "status": "in_progress", "content": []}
    yield _event("response.output_item.added", output_index=0, item=opened)
    where = {"item_id": item["id"], "output_index": 0, "content_index": 0}
    yield _event("response.content_part.added", **where, part={**part, "text": ""})
    for piece in _pieces(text):
        yield _event("response.output_text.delta", **where, delta=piece)
    yield _event("response.output_text.done", **where, text=text)
    yield _event("response.content_part.done", **where, part=part)
    yield _event("response.output_item.done", output_index=0, item=item)
    yield _event("response.completed", response=response)


def answer(
    client: str, recollection: str, session_id: str, body: dict[str, Any], path: str = ""
) -> Answer:
    """The reply the client reads its summary from: streamed when it asked to stream (Gemini
    asks by its path)."""
    model = str(body.get("model") or "")
    streamed = bool(body.get("stream"))
    if client == OPENCODE:  # the whole text named, in the shape of the wire it asked on
        return _opencode_answer(f"{_named(session_id)}\n\n{recollection}", body, path)
    if client == CODEX:
        reply = _response(recollection, model)
        events = _codex_events(reply)
    elif client == AIDER:
        reply = _completion(f"{_named(session_id)}\n\n{recollection}", model)
        events = _chat_events(reply)
    elif client == GEMINI:
        reply = _candidate(f"{_named(session_id)}\n\n{recollection}")
        events = _gemini_events(reply)
        streamed = ":streamGenerateContent" in path
    else:
        reply = _message(claude_text(recollection, session_id), model)
        events = _claude_events(reply)
    return _sent(reply, events, streamed)


def _opencode_answer(text: str, body: dict[str, Any], path: str) -> Answer:
    model, streamed, api = str(body.get("model") or ""), bool(body.get("stream")), wire.api_of(path)
    if api == wire.ANTHROPIC:
        message = _message(text, model)
        return _sent(message, _claude_events(message), streamed)
    if api == wire.RESPONSES:
        response = _response(text, model)
        return _sent(response, _codex_events(response), streamed)
    completion = _completion(text, model)
    return _sent(completion, _chat_events(completion), streamed)


def _sent(reply: dict[str, Any], events: Iterator[bytes], streamed: bool) -> Answer:
    if streamed:
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        return Answer(200, headers, events, None)
    whole = json.dumps(reply, ensure_ascii=False).encode()
    return Answer(200, {"Content-Type": "application/json"}, [whole], len(whole))
