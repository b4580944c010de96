"""Argument types shared by command modules: bad values become usage errors (exit 2)."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta

from vybe import clock


def _refused(message: str) -> Exception:
    """argparse's ArgumentTypeError, whose message is the usage error; only a refused value
    needs argparse (the plain parser hands such a line to argparse, which calls us again)."""
    import argparse

    return argparse.ArgumentTypeError(message)


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise _refused(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise _refused(f"{value} is outside {low}..{high}")
        return value

    parse.__name__ = "integer"
    return parse


def duration(text: str) -> timedelta:
    try:
        return clock.parse_duration(text)
    except ValueError as exc:
        raise _refused(str(exc)) from None


def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _refused(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise _refused(f"{text!r} is not a finite number")
    return value


limit = bounded_int(1, 1000)
tokens = bounded_int(1, 100_000_000)
priority = bounded_int(-1_000_000, 1_000_000)
