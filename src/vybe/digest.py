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
    return sha256(data).hexdigest()
