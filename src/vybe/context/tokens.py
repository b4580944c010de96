"""The default token estimate: a leaf module, so that hooks can count without the engine."""

from __future__ import annotations


def estimate(text: str) -> int:
    """The default estimate: ceil(UTF-8 bytes / 4)."""
    return (len(text.encode("utf-8")) + 3) // 4
