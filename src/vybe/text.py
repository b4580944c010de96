"""Text cut to a length on a character boundary: the one helper every layer may import."""

from __future__ import annotations

ELLIPSIS = "…"


def shorten(text: str, limit: int, marker: str = ELLIPSIS) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and ``marker`` within them."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(marker))] + marker
