"""vybe's answer on stdout, and a quiet end when stdout cannot take it (closed, a full
device, a reader gone).

Python keeps what a failed flush could not write in the stream's buffer and tries again as
the interpreter exits, where a second failure prints "Exception ignored in …" on stderr and
turns the exit status into 120, whatever the command returned. So once a write fails,
stdout's descriptor is pointed at /dev/null (Python's own advice for a broken pipe): what
is left goes nowhere, the exit is the caller's (the CLI's documented status, a hook's 0),
and stderr carries only what the caller says. Standard library only: the hook path and
the status line use it.
"""

from __future__ import annotations

import os
import sys


class Lost(OSError):
    """stdout could not take a write; it is /dev/null from then on."""


_lost: list[tuple[object, Lost]] = []  # the streams dropped, each with what dropped it


def write(data: bytes) -> None:
    """``data`` on stdout, flushed, after anything written before it; Lost when stdout
    cannot take it (then, and for every write after, that stream being /dev/null)."""
    stream = sys.stdout
    for dropped, lost in _lost:
        if dropped is stream:
            raise lost
    try:
        if stream is None:  # the descriptor was closed before vybe started
            raise OSError("stdout is closed")
        buffer = getattr(stream, "buffer", None)
        stream.flush()
        if buffer is None:  # a text stream without bytes beneath (a test's capture)
            stream.write(data.decode("utf-8"))
        else:
            buffer.write(data)
        stream.flush()
    except (OSError, ValueError) as error:
        drop()
        lost = Lost(getattr(error, "strerror", None) or str(error))
        _lost.append((stream, lost))
        raise lost from error


def drop() -> None:
    """Point stdout's descriptor at /dev/null, so nothing is left to fail at exit."""
    try:
        target = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, OSError, ValueError):  # closed, or no descriptor beneath
        return
    try:
        os.dup2(null, target)
    finally:
        os.close(null)
