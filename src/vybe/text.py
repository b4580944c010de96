"""Text helpers every layer may import: cut to a length on a character boundary, and text
from the operating system (argv, the environment) read as UTF-8 whatever the locale."""

from __future__ import annotations

import os

ELLIPSIS = "…"


def shorten(text: str, limit: int, marker: str = ELLIPSIS) -> str:
    """``text`` if it fits in ``limit`` characters, else its start and ``marker`` within them."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(marker))] + marker


def from_os(value: str) -> str | None:
    """An argument or environment value as UTF-8 text, or None when its bytes are not UTF-8.

    Python decodes argv and the environment with the locale's encoding; under LC_ALL=C
    without UTF-8 mode that is ASCII, so valid UTF-8 arrives as lone surrogates. Their bytes
    are taken back (``os.fsencode``) and decoded as UTF-8."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        pass
    try:
        return os.fsencode(value).decode("utf-8")
    except UnicodeError:
        return None


def to_os(text: str) -> str:
    """A path as the OS functions take it: under a locale that is ASCII without UTF-8 mode
    (LC_ALL=C, PYTHONUTF8=0) they encode str as ASCII, so a UTF-8 path is handed over as its
    bytes in the locale's escaped form (``os.fsdecode``), naming the same file."""
    try:
        os.fsencode(text)
        return text
    except UnicodeEncodeError:
        return os.fsdecode(text.encode("utf-8"))
