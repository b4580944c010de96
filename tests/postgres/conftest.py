"""The PostgreSQL-only tests: whatever ``--store`` says, this folder's fixtures open a
database on the session's server (tests/postgres/database.py), so ``pytest tests/postgres``
runs on its own too."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def store_kind() -> str:
    return "postgres"


@pytest.fixture
def pg_url(store_location: str) -> str:
    return store_location
