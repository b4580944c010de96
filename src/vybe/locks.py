"""An advisory lock between vybe processes: flock, so a holder that dies lets go at once."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Iterator

POLL_SECONDS = 0.01


@contextlib.contextmanager
def exclusive(path: str, timeout: float | None = None) -> Iterator[bool]:
    """Hold the lock file ``path`` (made if missing) for the block, waiting while another
    holds it; with ``timeout``, waiting at most that long. Yields whether the lock is held.
    A folder can be locked itself, which leaves no lock file in it."""
    if os.path.isdir(path):
        fd = os.open(path, os.O_RDONLY)
    else:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        yield _take(fd, timeout)
    finally:
        os.close(fd)


def _take(fd: int, timeout: float | None) -> bool:
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS)
