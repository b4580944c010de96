"""Persistence: every SQL statement of vybe lives in this package.

The embedded SQLite store is the default; a PostgreSQL URL selects the server store
(vybe.store.postgres, which imports psycopg, so it is imported only then)."""

from vybe.config import is_url
from vybe.store.db import CHECKED, SERIAL, SNAPSHOT, Store, open_readonly

__all__ = [
    "CHECKED",
    "SERIAL",
    "SNAPSHOT",
    "Store",
    "is_url",
    "open_readonly",
    "open_store",
    "redact",
]


def redact(url: str) -> str:
    """A connection string fit to print: the password replaced."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


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

        return PgStore(location, busy_timeout_ms, migrate=migrate, create=create)
    return Store(location, busy_timeout_ms, migrate=migrate, create=create)
