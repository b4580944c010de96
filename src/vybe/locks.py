"""An advisory lock between vybe processes: flock, so a holder that dies lets go at once."""

from __future__ import annotations

import fcntl
import os
import time

POLL_SECONDS = 0.01


class exclusive:
    """Hold the lock file ``path`` (made if missing) for the ``with`` block, waiting while
    another holds it; with ``timeout``, waiting at most that long. The block gets whether
    the lock is held. A folder can be locked itself, which leaves no lock file in it.

    A class, not a contextlib generator: contextlib is kept off the hook path
    (docs/architecture.md, performance budgets)."""

    def __init__(self, path: str, timeout: float | None = None) -> None:
        self.path, self.timeout = path, timeout

    def __enter__(self) -> bool:
        if os.path.isdir(self.path):
            self.fd = os.open(self.path, os.O_RDONLY)
        else:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            return _take(self.fd, self.timeout)
        except BaseException:
            os.close(self.fd)
            raise

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


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


def machine_file(key: str, name: str) -> str:
    """A lock file of this machine's (in a 700 folder of the user's in the temporary folder)
    for a store that has no folder here, a server's: named by a digest of ``key``, its URL."""
    import tempfile

    from vybe.digest import sha256_hex

    folder = os.path.join(tempfile.gettempdir(), f"vybe-{os.getuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.path.join(folder, f"{sha256_hex(key.encode())[:16]}-{name}.lock")
