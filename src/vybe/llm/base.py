"""The one interface every model adapter implements, and the neutral message types."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from vybe.errors import ModelError

Role = Literal["user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Message:
    """One message of a request; ``tool`` messages answer the call named by ``tool_call_id``."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object"})


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


StopReason = Literal["end", "tool_use", "length", "refusal"]


@dataclass(frozen=True)
class Reply:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: StopReason = "end"
    usage: Usage | None = None


@dataclass(frozen=True)
class Request:
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096


def _ignore(_: str) -> None:
    """Nothing to do: a watcher that does not care about retries."""


@dataclass(frozen=True)
class Watch:
    """Who sees a reply arrive: ``text`` gets its text in order, piece by piece as it streams
    (in one piece when it does not), and ``retry`` hears why the attempt failed and that the
    pieces seen so far are void: the reply starts again from its first piece."""

    text: Callable[[str], None]
    retry: Callable[[str], None] = _ignore


def shown(reply: Reply, watch: Watch | None) -> Reply:
    """A reply that arrived whole reaches the watcher in one piece."""
    if watch is not None and reply.text:
        watch.text(reply.text)
    return reply


class Model(Protocol):
    """A chat model: one request in, one reply out, or a ModelError.

    ``watch`` is optional: the same Reply comes back with or without it.
    """

    name: str

    def complete(self, request: Request, watch: Watch | None = None) -> Reply: ...


class ContextLengthExceeded(ModelError):
    """The provider refused the request as too long for the window."""

    code = "CONTEXT_LENGTH_EXCEEDED"
