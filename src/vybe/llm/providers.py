"""Build the adapter a run asked for, and fail clearly before any turn if it cannot work."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from vybe.errors import InvalidInput, ModelError
from vybe.llm.http import RetryPolicy
from vybe.llm.models import ModelInfo, resolve

PROVIDERS = ("openai", "anthropic")
DEFAULT_MODEL = {"openai": "gpt-4.1", "anthropic": "claude-sonnet-4-5"}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


@dataclass(frozen=True)
class Choice:
    """What the flags, VYBE_CHAT_* variables and the config's ``chat:`` section asked for."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    window: int | None = None
    max_output: int | None = None
    stream: bool = True


def _pick(flag: Any, env: str, section: dict[str, Any], key: str) -> Any:
    return flag or os.environ.get(env) or section.get(key)


def _given(flag: int | None, configured: Any) -> Any:
    """The flag when one was passed, even 0 (which resolve() then refuses), else the config."""
    return configured if flag is None else flag


def settle(choice: Choice, config: dict[str, Any]) -> tuple[ModelInfo, str | None, str | None]:
    """The model's settings, its base URL and the variable naming its key."""
    chat = config.get("chat") or {}
    provider = _pick(choice.provider, "VYBE_CHAT_PROVIDER", chat, "provider")
    if provider and provider not in PROVIDERS:
        raise InvalidInput(
            f"unknown provider {provider!r}", suggested_action="use --provider openai|anthropic"
        )
    model = _pick(choice.model, "VYBE_CHAT_MODEL", chat, "model")
    model = model or DEFAULT_MODEL[provider or "openai"]
    info = resolve(
        str(model),
        provider,
        config.get("models") or {},
        window=_given(choice.window, chat.get("window")),
        max_output=_given(choice.max_output, chat.get("max_output")),
        stream=choice.stream,
    )
    base_url = _pick(choice.base_url, "VYBE_CHAT_BASE_URL", chat, "base_url")
    key_env = _pick(choice.api_key_env, "VYBE_CHAT_API_KEY_ENV", chat, "api_key_env")
    return info, _checked_url(base_url), key_env


def _checked_url(url: Any) -> str | None:
    """A base URL an HTTP client can use: http(s), a host, no spaces or control characters
    (a CR/LF or ESC would reach the request line or the person's terminal)."""
    if url is None:
        return None
    from urllib.parse import urlsplit

    text = str(url)
    try:
        parts = urlsplit(text) if text.isprintable() and " " not in text else None
        port_ok = parts is not None and (parts.port is None or parts.port > 0)
    except ValueError:  # an unclosed [IPv6 bracket, a port that is not a number
        parts, port_ok = None, False
    if parts is None or not port_ok or parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput(
            "the base URL must be an http:// or https:// URL without spaces or control characters",
            context={"field": "base_url", "value": text[:200].encode("unicode_escape").decode()},
            suggested_action="pass --base-url like http://127.0.0.1:11434/v1",
        )
    return text


def _key(info: ModelInfo, base_url: str | None, key_env: str | None) -> str | None:
    """The API key; required for Anthropic, OpenAI's own endpoint, or a named variable."""
    name = key_env or DEFAULT_KEY_ENV[info.provider]
    key = os.environ.get(name, "").strip()
    needed = info.provider == "anthropic" or key_env is not None or base_url is None
    if needed and not key:
        raise ModelError(
            f"no API key for {info.provider}: the variable {name} is not set",
            code="MODEL_KEY_MISSING",
            context={"provider": info.provider, "api_key_env": name},
            suggested_action=f"export {name}=... or pass --api-key-env NAME",
        )
    return key or None


def connect(
    info: ModelInfo,
    base_url: str | None = None,
    key_env: str | None = None,
    policy: RetryPolicy | None = None,
) -> Any:
    """An adapter for ``info``, probed once so a bad key or a dead server fails up front."""
    key = _key(info, base_url, key_env)
    if info.provider == "anthropic":
        from vybe.llm.anthropic import DEFAULT_BASE_URL, AnthropicMessages

        model: Any = AnthropicMessages(
            info.wire_name,
            api_key=key or "",
            base_url=base_url or DEFAULT_BASE_URL,
            headers=info.headers,
            policy=policy,
            stream=info.stream,
        )
    else:
        from vybe.llm.openai_compat import DEFAULT_BASE_URL, OpenAICompatible

        model = OpenAICompatible(
            info.wire_name,
            base_url=base_url or DEFAULT_BASE_URL,
            api_key=key,
            headers=info.headers,
            policy=policy,
            stream=info.stream,
        )
    model.check()
    return model
