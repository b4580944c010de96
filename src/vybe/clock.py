"""Time and identifiers in the one format every table and envelope uses."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """UTC ISO-8601 with a fixed width, so text comparison is time comparison."""
    return moment.astimezone(UTC).strftime(_FORMAT)


def now_iso() -> str:
    return iso(now())


def parse_iso(text: str) -> datetime:
    return datetime.strptime(text, _FORMAT).replace(tzinfo=UTC)


def new_id(kind: str) -> str:
    """``{type}_{unix_nano}_{random_hex}``, as the seed names every entity."""
    return f"{kind}_{time.time_ns()}_{os.urandom(4).hex()}"


MAX_DURATION_SECONDS = 100 * 365 * 86400
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> timedelta:
    """Parse ``90s``, ``15m``, ``24h``, ``7d`` or ``2w``."""
    text = text.strip().lower()
    if len(text) < 2 or text[-1] not in _UNITS or not text[:-1].isdigit():
        raise ValueError(f"invalid duration {text!r}: use a number and one of s, m, h, d, w")
    seconds = int(text[:-1]) * _UNITS[text[-1]]
    if not 0 < seconds <= MAX_DURATION_SECONDS:
        raise ValueError(f"invalid duration {text!r}: must be positive and at most 100 years")
    return timedelta(seconds=seconds)
