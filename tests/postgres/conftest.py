"""The PostgreSQL store under test: one real server for the whole session, one migrated
database emptied before each test.

The ``vybe`` fixture here replaces the SQLite one for every test collected under this
folder, so a contract test module imported here runs on PostgreSQL unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import travel  # noqa: F401 - the contract modules' clock
from tests.conftest import Vybe
from tests.postgres.server import FAST, Server, running
from vybe.store.postgres import PgStore

DATABASE = "vybe_test"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    with running(FAST) as server:
        server.admin(f"CREATE DATABASE {DATABASE}")
        PgStore(server.url(DATABASE)).close()
        yield server


def emptied(server: Server) -> str:
    """The test database with every row gone and every sequence back at its start: a
    fresh store in milliseconds (creating a database per test took half a second here).
    The append-only triggers are off for the emptying only (replica role)."""
    import psycopg

    url = server.url(DATABASE)
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("SET LOCAL lock_timeout = 5000")
        names = "SELECT {0} FROM pg_{1} WHERE schemaname = 'public' AND {0} <> 'schema_migrations'"
        for (table,) in conn.execute(names.format("tablename", "tables")).fetchall():
            conn.execute(f"DELETE FROM {table}")
        for (sequence,) in conn.execute(names.format("sequencename", "sequences")).fetchall():
            conn.execute(f"ALTER SEQUENCE {sequence} RESTART")
    return url


@pytest.fixture
def pg_url(pg_server: Server) -> str:
    return emptied(pg_server)


@pytest.fixture
def pg_store(pg_url: str) -> Iterator[PgStore]:
    store = PgStore(pg_url)
    yield store
    store.close()


class PgVybe(Vybe):
    """``vybe`` against a database on the test server: the same calls, the store's SQL
    (SQLite-flavoured, as tests write it) translated as the store's own is."""

    def __init__(self, home: Path, url: str) -> None:
        super().__init__(home)
        self.url = url
        self.env.pop("VYBE_DB_PATH", None)
        self.env["VYBE_DB_URL"] = url

        self._direct: PgStore | None = None

    def _store(self) -> PgStore:
        """One connection of the test's own, beside the commands' (autocommit)."""
        if self._direct is None:
            self._direct = PgStore(self.url, migrate=False)
        return self._direct

    def close(self) -> None:
        if self._direct is not None:
            self._direct.close()

    def dump(self) -> str:
        """Every row of every table, in key order: what a refused command must not change."""
        raw = self._store().conn.raw
        tables = [
            r[0]
            for r in raw.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            )
        ]
        lines = []
        for table in tables:
            rows = raw.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            lines += [f"{table}: {row!r}" for row in rows]
        return "\n".join(lines)

    def refused(self, code: str, *args: str, exit_code: int = 1, **kwargs):
        before = self.dump()
        result = self(*args, **kwargs)
        assert result.code == exit_code, result.envelope
        assert result.error_code == code, result.envelope
        assert self.dump() == before
        return result

    def sql(self, query: str, params: tuple = ()) -> list[tuple]:
        conn = self._store()._live()  # connected again after a restarted server
        return [tuple(row) for row in conn.execute(query, params).fetchall()]


@pytest.fixture
def vybe(tmp_path: Path, pg_url: str) -> Iterator[PgVybe]:
    on_server = PgVybe(tmp_path, pg_url)
    yield on_server
    on_server.close()
