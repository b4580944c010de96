"""An advisory lock between vybe processes: flock, so a holder that dies lets go at once."""

from __future__ import annotations

import contextlib
import fcntl
import os

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Iterator


@contextlib.contextmanager
def exclusive(path: str) -> Iterator[None]:
    """Hold the lock file ``path`` (made if missing) for the block; wait while another holds it."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
