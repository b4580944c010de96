"""The four model APIs the proxy knows, by path: their error shape, and the session a
request belongs to (the client's own identity, as the real clients send it).

Anthropic Messages (``/v1/messages``, ``/v1/messages/count_tokens``), OpenAI Chat
Completions (``…/chat/completions``), OpenAI Responses (``…/responses``) and Gemini
(``…/models/<model>:generateContent``, ``:streamGenerateContent``, ``:countTokens``). Any other path
is relayed as bytes and never read.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from vybe.proxy import scaffolding

ANTHROPIC, CHAT, RESPONSES, GEMINI = "anthropic", "chat", "responses", "gemini"
GEMINI_METHODS = (":generateContent", ":streamGenerateContent", ":countTokens")
# The one path the proxy answers itself (``vybe doctor`` asks whether a base URL is a proxy).
PROBE_PATH = "/.vybe-proxy"
# How Gemini CLI's own context (date, OS, folders) starts, the first user turn it sends.
GEMINI_CONTEXT = "<session_context>"
# How Gemini CLI wraps the context a hook adds, and the line vybe's hooks end the brief they
# give with (vybe.integrations.hooks.gemini.SESSION_LINE): the record session they write.
HOOK_CONTEXT = "<hook_context>"
HOOKED = re.compile(rf"^vybe session (gemini:{scaffolding.UUID})\b", re.MULTILINE)
# A header any client may set to name its session (one the proxy cannot recognise otherwise).
SESSION_HEADER = "x-vybe-session"


def api_of(path: str) -> str | None:
    """Which API a request path belongs to (the query string left out), or None."""
    bare = path.split("?", 1)[0].rstrip("/")
    if bare.endswith("/v1/messages") or bare.endswith("/v1/messages/count_tokens"):
        return ANTHROPIC
    if bare.endswith("/chat/completions"):
        return CHAT
    if bare.endswith("/responses"):
        return RESPONSES
    if "/models/" in bare and bare.endswith(GEMINI_METHODS):
        return GEMINI
    return None


def is_generation(path: str) -> bool:
    """Whether the request asks for a reply (``count_tokens`` only counts)."""
    return not path.split("?", 1)[0].rstrip("/").endswith(("/count_tokens", ":countTokens"))


ANTHROPIC_KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    407: "authentication_error",
    413: "request_too_large",
    502: "api_error",
    504: "timeout_error",
}


def error_body(api: str | None, status: int, message: str, code: str) -> bytes:
    """An error of the proxy's own, in the shape the client's API gives its errors."""
    if api == ANTHROPIC:
        kind = ANTHROPIC_KINDS.get(status, "api_error")
        body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    elif api == GEMINI:
        kind = "INVALID_ARGUMENT" if status < 500 else "UNAVAILABLE"
        body = {"error": {"code": status, "message": message, "status": kind}}
    else:
        kind = "invalid_request_error" if status < 500 else "api_error"
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return json.dumps(body).encode()


def _claude_session(body: dict[str, Any]) -> str | None:
    """Claude Code's ``metadata.user_id``: a JSON string holding the ``session_id``."""
    metadata = body.get("metadata")
    raw = metadata.get("user_id") if isinstance(metadata, dict) else None
    if not isinstance(raw, str):
        return None
    try:
        parsed = json.loads(raw)
    except ValueError:
        return None
    value = parsed.get("session_id") if isinstance(parsed, dict) else None
    return value if isinstance(value, str) and value else None


def _codex_session(body: dict[str, Any]) -> str | None:
    """Codex's ``client_metadata.session_id``, else its ``prompt_cache_key`` (the thread id)."""
    metadata = body.get("client_metadata")
    value = metadata.get("session_id") if isinstance(metadata, dict) else None
    if isinstance(value, str) and value:
        return value
    key = body.get("prompt_cache_key")
    return key if isinstance(key, str) and key else None


def _gemini_session(body: dict[str, Any]) -> str | None:
    """The session vybe's hooks named in the brief they gave with the first prompt
    (``gemini:<session id>``), else ``gemini:<hash of the first typed prompt>``: Gemini CLI
    sends no session id. Its side requests (a JSON answer asked for: the routing
    classifier, the next-speaker check) are no turn of the session (None: relayed, not
    recorded)."""
    config = body.get("generationConfig")
    if isinstance(config, dict) and (
        config.get("responseJsonSchema") or config.get("responseMimeType") == "application/json"
    ):
        return None
    for content in body.get("contents") or ():
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(content, dict) or content.get("role") != "user":
            continue
        listed = parts if isinstance(parts, list) else []
        texts = [
            p["text"] for p in listed if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        for text in texts:
            if not text.strip() or text.startswith((GEMINI_CONTEXT, HOOK_CONTEXT)):
                continue
            named = scaffolding.NAMED.match(text)
            if named and named.group(1).startswith("gemini:"):
                return named.group(1)  # the summary it keeps: vybe's, naming the session
            hooked = [m[1] for t in texts if t.startswith(HOOK_CONTEXT) and (m := HOOKED.search(t))]
            return hooked[0] if hooked else f"gemini:{_digest(text)}"
    return None


def _digest(text: str) -> str:
    return hashlib.sha256(text.strip().encode()).hexdigest()[:24]


def _first_message(api: str, body: dict[str, Any]) -> Any:
    items = body.get("input") if api == RESPONSES else body.get("messages")
    if isinstance(items, str):
        return items
    if isinstance(items, list):
        return next((m for m in items if isinstance(m, dict) and m.get("role") == "user"), None)
    return None


def session_of(api: str, headers: Any, body: dict[str, Any]) -> str | None:
    """The record session of a request: ``claude:<id>`` and ``codex:<id>`` (the ids the hooks
    use, so a session is one session whoever records it), ``aider:<id>`` (its first typed
    prompt's, vybe.proxy.scaffolding), ``gemini:<id>`` (likewise), a client's
    ``x-vybe-session`` header, else ``proxy:<hash of the first user message>``; None when
    there is none."""
    named = headers.get(SESSION_HEADER)
    if named:
        return f"proxy:{named}"
    if api == ANTHROPIC and (claude := _claude_session(body)):
        return f"claude:{claude}"
    if api == RESPONSES and (codex := _codex_session(body)):
        return f"codex:{codex}"
    if api == GEMINI:
        return _gemini_session(body)
    if api == CHAT and isinstance(messages := body.get("messages"), list):
        aider = scaffolding.aider_session(messages)
        if aider is not None:
            return aider
    first = _first_message(api, body)
    if first is None:
        return None
    canonical = json.dumps(first, sort_keys=True, ensure_ascii=False).encode()
    return "proxy:" + hashlib.sha256(canonical).hexdigest()[:24]
