"""vybe.digest gives exactly hashlib's SHA-256, without loading OpenSSL."""

from __future__ import annotations

import hashlib

import pytest

from vybe.digest import sha256_hex


@pytest.mark.parametrize(
    "data",
    [b"", b"x", "ünïcödé 🚀".encode(), "\ud800".encode("utf-8", "surrogatepass"), b"a" * 100_000],
)
def test_digest_equals_hashlib_sha256(data):
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
