"""Persistence: every SQL statement of vybe lives in this package.

The embedded SQLite store is the default; a PostgreSQL URL selects the server store
(vybe.store.postgres, which imports psycopg, so it is imported only then)."""

import os

from vybe.config import is_url
from vybe.store.base import CHECKED, SERIAL, SNAPSHOT, Store
from vybe.store.db import SqliteStore

__all__ = [
    "CHECKED",
    "SERIAL",
    "SNAPSHOT",
    "SqliteStore",
    "Store",
    "is_url",
    "keep_server_stores",
    "open_store",
]

# The server stores this process keeps open between requests (the local service,
# vybe.cli.service), by location, busy timeout and the identity the caller's environment
# gives them (_identity); None in every other process.
_kept: dict[tuple[object, ...], Store] | None = None


def keep_server_stores() -> None:
    """From now on a server store opened here stays connected, and the next open of the
    same one is handed it again (closing it only ends what it left open)."""
    global _kept
    _kept = {}


def _identity() -> tuple[tuple[str, str], ...]:
    """What besides the URL decides whom a connection is made as and what its rows are:
    libpq's own variables (PGUSER, PGPASSFILE, PGSERVICE, PGSSLMODE, ...) and VYBE_TEAM, as
    the caller's environment has them. The local service swaps each caller's environment
    in, so a kept connection is never one role's serving another's request."""
    return tuple(
        sorted((k, v) for k, v in os.environ.items() if k.startswith("PG") or k == "VYBE_TEAM")
    )


def require_driver() -> None:
    """MissingDependency, saying which extra to install, when psycopg is not there."""
    from vybe.errors import require_extra

    require_extra("psycopg", "postgres", "a PostgreSQL store (--db-url)")


def open_store(
    location: str, busy_timeout_ms: int = 5000, migrate: bool = True, create: bool = True
) -> Store:
    """The store at ``location``: a PostgreSQL URL or the path of a SQLite file."""
    if is_url(location):
        require_driver()
        from vybe.store.postgres import PgStore

        if _kept is None:
            return PgStore(location, busy_timeout_ms, migrate=migrate, create=create)
        key = (location, busy_timeout_ms, *_identity())
        found = _kept.get(key)
        if found is None:
            found = PgStore(location, busy_timeout_ms, migrate=migrate, create=create)
            found.kept = True
            _kept[key] = found
        return found
    return SqliteStore(location, busy_timeout_ms, migrate=migrate, create=create)
