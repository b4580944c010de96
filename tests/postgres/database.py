"""The PostgreSQL side of the suite's store switch (``--store=postgres``): one migrated
database on the session's server, emptied before each test, and ``vybe`` pointed at it.

Imported only when a test asks for the server store, so the SQLite suite never loads
psycopg."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import Vybe
from tests.postgres.server import Server
from vybe.store.postgres import PgStore

DATABASE = "vybe_test"


# What the migrated database holds: its tables and applied migrations, to tell a test that
# changed the schema (dropped a table, forgot a migration) from one that only wrote rows.
SCHEMA = "SELECT (SELECT string_agg(tablename, ' ' ORDER BY tablename) FROM pg_tables"
SCHEMA += " WHERE schemaname = 'public'), (SELECT string_agg(name, ' ' ORDER BY name)"
SCHEMA += " FROM schema_migrations)"
_migrated: list[tuple] = []


def prepare(server: Server) -> None:
    """The test database, migrated: once for the session, again after a test changed it."""
    import psycopg

    server.admin(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    server.admin(f"CREATE DATABASE {DATABASE}")
    PgStore(server.url(DATABASE)).close()
    with psycopg.connect(server.url(DATABASE)) as conn:
        _migrated[:] = [tuple(conn.execute(SCHEMA).fetchone())]


def made_before(server: Server, monkeypatch: Any, name: str, migration: str) -> Any:
    """A fresh database ``name`` as a vybe that knew every migration before ``migration``
    left it, opened (the caller fills it, closes it, and migrates it the rest of the way)."""
    from vybe.store import db, open_store
    from vybe.store import postgres as pg

    server.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    server.admin(f"CREATE DATABASE {name}")
    files = db.migration_files()
    at = [p.rsplit("/", 1)[-1] for p in files].index(migration)
    with monkeypatch.context() as patched:
        patched.setattr(pg, "migration_files", lambda: files[:at])
        return open_store(server.url(name), 5000)


def old_message(store: Any, session: str, kind: str, text: str, data: Any = None) -> None:
    """A message of ``session`` written as a vybe before 0025 wrote it, into a store
    ``made_before`` opened (today's writer names columns such a store does not have yet)."""
    import json

    def body(conn: Any) -> None:
        conn.execute(
            "INSERT INTO sessions (id, created_at) VALUES (?, 't') ON CONFLICT (id) DO NOTHING",
            (session,),
        )
        seq = conn.execute(
            "SELECT COALESCE(MAX(context_seq), 0) + 1 FROM messages WHERE session_id = ?",
            (session,),
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO messages (session_id, context_seq, type, source, content_text,"
            " content_json, tokens, created_at) VALUES (?, ?, ?, 'test', ?, ?, ?, 't')",
            (session, seq, kind, text, json.dumps(data) if data else None, len(text) // 4),
        )

    store.transact(body)


def emptied(server: Server) -> str:
    """The test database with every row gone and every sequence back at its start: a
    fresh store in milliseconds (creating a database per test took half a second here).
    The append-only triggers are off for the emptying only (replica role)."""
    import psycopg

    url = server.url(DATABASE)
    with psycopg.connect(url, autocommit=True) as conn:
        changed = _migrated != [tuple(conn.execute(SCHEMA).fetchone())]
    if changed:
        prepare(server)
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("SET LOCAL lock_timeout = 5000")
        names = "SELECT {0} FROM pg_{1} WHERE schemaname = 'public' AND {0} <> 'schema_migrations'"
        for (table,) in conn.execute(names.format("tablename", "tables")).fetchall():
            conn.execute(f"DELETE FROM {table}")
        for (sequence,) in conn.execute(names.format("sequencename", "sequences")).fetchall():
            conn.execute(f"ALTER SEQUENCE {sequence} RESTART")
    return url


class PgVybe(Vybe):
    """``vybe`` against a database on the test server: the same calls, the store's SQL
    (SQLite-flavoured, as tests write it) translated as the store's own is."""

    def __init__(self, home: Path, url: str) -> None:
        super().__init__(home)
        self.url = self.location = url
        self.env.pop("VYBE_DB_PATH", None)
        self.env["VYBE_DB_URL"] = url
        self._direct: PgStore | None = None

    def _store(self) -> PgStore:
        """One connection of the test's own, beside the commands' (autocommit)."""
        if self._direct is None:
            self._direct = PgStore(self.url, migrate=False)
        return self._direct

    def initialized(self) -> None:
        """The session migrated the database already."""

    def close(self) -> None:
        if self._direct is not None:
            self._direct.close()

    def dump(self) -> str:
        """Every row of every table, in key order: what a refused command must not change."""
        raw = self._live().raw
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

    def pg_dump(self) -> bytes:
        """What ``pg_dump`` of the database writes: the store's bytes as a backup holds them."""
        import subprocess

        import pgserver

        binary = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_dump"
        done = subprocess.run([str(binary), "--dbname", self.url], capture_output=True, check=True)
        return done.stdout

    def _live(self):
        return self._store()._live()  # connected again after a restarted server

    def settings(self, agent: str):
        from vybe import config

        return config.load(agent, db_url=self.url)

    def sql(self, query: str, params: tuple = ()) -> list[tuple]:
        return [tuple(row) for row in self._live().execute(query, params).fetchall()]
