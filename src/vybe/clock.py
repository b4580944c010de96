"""Time and identifiers in the one format every table and envelope uses.

Every clock reading of vybe goes through ``now``, so time can be moved without waiting:
tests in the same process call ``shift`` (``reset`` puts it back); a test that runs vybe as
a child process sets ``VYBE_CLOCK_OFFSET`` (signed seconds) in the child's environment, the
one channel a process boundary has that changes nothing else. The offset only moves vybe's
own idea of the time, as changing the machine's clock would; ids (``new_id``) keep the real
clock, so they stay unique and ordered whatever the offset.

Where the time comes from: this machine's clock, unless a server store holds a reading of
the server's clock for the transaction in progress on this thread (``Held``, which
vybe.store.postgres takes at each BEGIN): then every ``now`` of that transaction is that one
reading, so agents on machines whose clocks disagree stamp rows and judge leases by one
clock. The test offset moves either, as it moves every process of a test alike.
``VYBE_CLOCK_SKEW`` (signed seconds) moves this machine's clock only, as a drifting clock
would: what a server store's reading makes no difference to.

The offset and the skew are honoured only beside ``VYBE_TEST_CLOCK=1``, the test suite's
switch: alone (a variable left over in a shell, a copied environment) they are ignored, so
no stray setting can shift the timestamps and leases of a real store.
"""

from __future__ import annotations

import _thread
import os
import time
from datetime import UTC, datetime, timedelta

from vybe.errors import VybeError

_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
_shifted = timedelta(0)


def shift(delta: timedelta) -> None:
    """Move this process's clock by ``delta`` (tests: a lease expires without a sleep)."""
    global _shifted
    _shifted += delta


def reset() -> None:
    global _shifted
    _shifted = timedelta(0)


OFFSET_VARIABLE, SKEW_VARIABLE, TEST_SWITCH = (
    "VYBE_CLOCK_OFFSET",
    "VYBE_CLOCK_SKEW",
    "VYBE_TEST_CLOCK",
)
# The server's clock read for the transaction in progress, by thread (the MCP server runs
# its calls' stores in worker threads). ``_thread`` (documented, the low-level threading
# API) is loaded in every interpreter already; threading would cost the hook path.
_held: dict[int, datetime] = {}


class Held:
    """``with Held(reading):`` every ``now`` inside is ``reading`` (plus the test offset),
    not this machine's clock; the reading held before comes back at the end."""

    def __init__(self, reading: datetime) -> None:
        self.reading = reading
        self.before: datetime | None = None

    def __enter__(self) -> None:
        thread = _thread.get_ident()
        self.before = _held.get(thread)
        _held[thread] = self.reading

    def __exit__(self, *_: object) -> None:
        thread = _thread.get_ident()
        if self.before is None:
            _held.pop(thread, None)
        else:
            _held[thread] = self.before


def _seconds(variable: str) -> timedelta:
    """A test variable's signed seconds; zero when it or the test switch is not set."""
    text = os.environ.get(variable)
    if not text or os.environ.get(TEST_SWITCH) != "1":
        return timedelta(0)
    try:
        return timedelta(seconds=float(text))
    except (ValueError, OverflowError):
        raise VybeError(
            f"{variable} must be a number of seconds, not {text!r}",
            code="INVALID_INPUT",
            context={"field": variable},
        ) from None


def _source() -> datetime:
    """The server's reading held for this transaction, else this machine's clock."""
    reading = _held.get(_thread.get_ident()) if _held else None
    if reading is not None:
        return reading
    return datetime.now(UTC) + _seconds(SKEW_VARIABLE)


def _out_of_range(detail: str) -> VybeError:
    return VybeError(
        f"the clock reads a time vybe cannot record ({detail})",
        code="CLOCK_OUT_OF_RANGE",
        suggested_action="set the machine's clock to the current date",
    )


def now() -> datetime:
    try:
        return _source() + _shifted + _seconds(OFFSET_VARIABLE)
    except (ValueError, OverflowError, OSError) as exc:
        raise _out_of_range(str(exc)) from None


def after(moment: datetime, delta: timedelta) -> datetime:
    """``moment + delta``; past year 9999 a CLOCK_OUT_OF_RANGE error, not an OverflowError."""
    try:
        return moment + delta
    except OverflowError:
        raise _out_of_range(f"{moment.year} plus {delta.days} days") from None


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
# The longest a claim may hold before it is renewed; a lease ending further ahead than this
# of a reader's clock came from a clock that was ahead, and holds nothing (docs/cli.md, Claims).
MAX_LEASE = timedelta(hours=24)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def bounded_lease(lease: timedelta) -> timedelta:
    """``lease`` itself; longer than MAX_LEASE, a ValueError."""
    if lease > MAX_LEASE:
        raise ValueError(f"a lease is at most 24h (renew it with a heartbeat), not {lease}")
    return lease


def parse_duration(text: str) -> timedelta:
    """Parse ``90s``, ``15m``, ``24h``, ``7d`` or ``2w``."""
    text = text.strip().lower()
    if len(text) < 2 or text[-1] not in _UNITS or not text[:-1].isdigit():
        raise ValueError(f"invalid duration {text!r}: use a number and one of s, m, h, d, w")
    seconds = int(text[:-1]) * _UNITS[text[-1]]
    if not 0 < seconds <= MAX_DURATION_SECONDS:
        raise ValueError(f"invalid duration {text!r}: must be positive and at most 100 years")
    return timedelta(seconds=seconds)
