"""Argument types shared by command modules: bad values become usage errors (exit 2)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from datetime import timedelta

from vybe import clock


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside {low}..{high}")
        return value

    parse.__name__ = "integer"
    return parse


def duration(text: str) -> timedelta:
    try:
        return clock.parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


limit = bounded_int(1, 1000)
tokens = bounded_int(1, 100_000_000)
priority = bounded_int(-1_000_000, 1_000_000)
