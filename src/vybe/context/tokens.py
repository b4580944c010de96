"""The default token estimate: a leaf module, so that hooks can count without the engine."""

from __future__ import annotations

from vybe import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def estimate(text: str) -> int:
    """The default estimate: ceil(UTF-8 bytes / 4)."""
    return (len(text.encode("utf-8")) + 3) // 4


def compact(value: object) -> str:
    """JSON without spaces, as a tool call's arguments are counted."""
    return jsonio.dumps(value, ensure_ascii=False, separators=(",", ":"))


def reply_tokens(text: str, calls: Iterable[Any]) -> int:
    """A reply's text, plus each tool call's name and compact JSON arguments."""
    return estimate(text) + sum(estimate(c.name + compact(c.arguments)) for c in calls)
