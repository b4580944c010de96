"""Server-sent events: the lines of a streamed HTTP body, grouped into named events."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """One event: its ``event:`` name (``message`` when unnamed) and its ``data:`` lines."""

    name: str
    data: str


def events(lines: Iterable[str]) -> Iterator[Event]:
    """The events in ``lines``; comments (``: ping``) and ``id:``/``retry:`` fields are skipped.

    An event is dispatched at a blank line, or at the end of the body when the last blank
    line never came (the reader decides whether what it got is complete). As the SSE standard
    says, a byte-order mark before the first line is dropped and an event whose data is empty
    is not dispatched.
    """
    name, data = "", list[str]()
    for number, line in enumerate(lines):
        if number == 0:
            line = line.removeprefix("\ufeff")
        if not line:
            if "\n".join(data):
                yield Event(name or "message", "\n".join(data))
            name, data = "", []
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
    if "\n".join(data):
        yield Event(name or "message", "\n".join(data))
