"""The one interface every model adapter implements, and the neutral message types."""

from __future__ import annotations

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


class Model(Protocol):
    """A chat model: one request in, one reply out, or a ModelError."""

    name: str

    def complete(self, request: Request) -> Reply: ...


class ContextLengthExceeded(ModelError):
    """The provider refused the request as too long for the window."""

    code = "CONTEXT_LENGTH_EXCEEDED"
