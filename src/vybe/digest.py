"""SHA-256 without loading OpenSSL: every hook and every mutation takes one digest.

``hashlib`` initialises OpenSSL on import, a large part of a bare interpreter's start;
CPython's built-in SHA-256 module gives the same digest for a fraction of it. Where a build
lacks it, hashlib serves.
"""

from __future__ import annotations

try:
    from _sha2 import sha256  # type: ignore[import-not-found]  # CPython 3.12 and later
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython 3.11
    except ImportError:
        from hashlib import sha256


def sha256_hex(data: bytes) -> str:
    hexed: str = sha256(data).hexdigest()
    return hexed


FILE_PIECE = 1024 * 1024


def file_sha256(path: str, limit: int) -> str | None:
    """The SHA-256 of a regular file's bytes, read a piece at a time; None when it cannot be
    read or holds more than ``limit`` bytes."""
    import os

    try:
        with open(path, "rb") as file:
            if not os.path.isfile(path) or os.fstat(file.fileno()).st_size > limit:
                return None
            digest, read = sha256(), 0
            while piece := file.read(FILE_PIECE):
                read += len(piece)
                if read > limit:
                    return None
                digest.update(piece)
    except (OSError, ValueError):
        return None
    hexed: str = digest.hexdigest()
    return hexed
