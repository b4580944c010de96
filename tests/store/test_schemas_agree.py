"""The SQLite and the PostgreSQL migration trees give one schema: after every migration, both
stores hold the same tables, columns (by name, class of type and nullability), primary keys,
unique and other indexes (by their columns, order and condition) and triggers (by table,
timing and event), but for what each store's own search is made of, listed below with why.

Part of `make test`, not only `make test-postgres`: a migration written for one store and
forgotten for the other fails here. It starts its own PostgreSQL server (about a second)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from vybe.store import open_store

# What only one store has, and why. Each store's search is its own: SQLite's FTS5 tables
# (and the shadow tables FTS5 makes) with the triggers that fill them; PostgreSQL's word
# tables with GIN indexes, and trigram indexes over expressions.
SQLITE_ONLY_TABLES = {
    "sqlite_sequence": "SQLite's own AUTOINCREMENT counters",
    **{
        f"search_{index}{part}": "SQLite's FTS5 search index (and its shadow tables)"
        for index in ("words", "literal")
        for part in ("", "_config", "_data", "_docsize", "_idx")
    },
}
POSTGRES_ONLY_TABLES = {
    "event_words": "PostgreSQL's word search of events (tsvector, GIN)",
    "message_words": "PostgreSQL's word search of messages (tsvector, GIN)",
}
POSTGRES_ONLY_INDEXES = {
    "events_search_literal": "PostgreSQL's literal search: trigrams of an expression (GIN)",
    "messages_search_literal": "PostgreSQL's literal search: trigrams of an expression (GIN)",
}
# SQLite's rowid is implicit; PostgreSQL's idempotency table spells it as a column.
POSTGRES_ONLY_COLUMNS = {("idempotency", "rowid"): "SQLite's implicit rowid, made explicit"}
POSTGRES_ONLY_TRIGGERS = {
    "events_number": "the commit-order number of an event, which SQLite's one writer gives",
}
SQLITE_ONLY_TRIGGERS = {
    "events_search_prune": "FTS5 forgets an archived event's words (PostgreSQL: a foreign key)",
}
# A type's class: what a value of it is, whatever each store calls it.
CLASSES = {
    "integer": "integer",
    "bigint": "integer",
    "smallint": "integer",
    "boolean": "integer",  # SQLite stores 0 and 1
    "text": "text",
    "jsonb": "text",  # SQLite keeps the JSON text
    "double precision": "real",
    "real": "real",
    "bytea": "blob",
    "blob": "blob",
}


def sqlite_class(declared: str) -> str:
    """SQLite's type affinity of a declared type, as a class (sqlite.org/datatype3.html)."""
    upper = declared.upper()
    if "INT" in upper:
        return "integer"
    if any(word in upper for word in ("CHAR", "CLOB", "TEXT")):
        return "text"
    if not upper or "BLOB" in upper:
        return "blob"
    return "real" if any(word in upper for word in ("REAL", "FLOA", "DOUB")) else "numeric"


def sqlite_schema(path: Path) -> dict:
    conn = sqlite3.connect(path)
    try:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
            if name not in SQLITE_ONLY_TABLES
        ]
        schema: dict = {"tables": set(tables), "columns": set(), "keys": set(), "indexes": set()}
        for table in tables:
            info = conn.execute(f"PRAGMA table_info({table})").fetchall()
            for _, name, declared, notnull, _, pk in info:
                # A primary key's column is never NULL, whatever SQLite's declaration says.
                schema["columns"].add((table, name, sqlite_class(declared), bool(notnull or pk)))
            key = tuple(name for *_, name, _, _, _, pk in sorted(info, key=lambda c: c[5]) if pk)
            schema["keys"].add((table, key))
            for _, index, unique, origin, partial in conn.execute(f"PRAGMA index_list({table})"):
                if origin == "pk":
                    continue
                columns = tuple(
                    f"{name}{' DESC' if desc else ''}"
                    for _, _, name, desc, _, key in conn.execute(f"PRAGMA index_xinfo({index})")
                    if key
                )
                named = index if origin == "c" else ""  # a constraint's index has no name
                schema["indexes"].add((table, named, bool(unique), columns, bool(partial)))
        schema["triggers"] = {
            (table, name, *_timing_and_event(sql))
            for table, name, sql in conn.execute(
                "SELECT tbl_name, name, sql FROM sqlite_master WHERE type = 'trigger'"
            )
            if name not in SQLITE_ONLY_TRIGGERS
        }
        return schema
    finally:
        conn.close()


def _timing_and_event(sql: str) -> tuple[str, str]:
    """``CREATE TRIGGER name BEFORE DELETE ON …`` -> ("BEFORE", "DELETE")."""
    words = sql.split()
    return words[3], words[4]


POSTGRES_COLUMNS = """
SELECT table_name, column_name, data_type, is_nullable = 'NO' FROM information_schema.columns
WHERE table_schema = 'public'
"""
POSTGRES_INDEXES = """
SELECT t.relname, i.relname, x.indisunique, x.indisprimary, x.indpred IS NOT NULL,
       x.indnkeyatts,
       array(SELECT pg_get_indexdef(x.indexrelid, k, true)
             FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k),
       array(SELECT (x.indoption[k - 1] & 1) = 1
             FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k),
       EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = 'public'
"""
POSTGRES_TRIGGERS = """
SELECT event_object_table, trigger_name, action_timing, event_manipulation
FROM information_schema.triggers
WHERE trigger_schema = 'public'
"""


def postgres_schema(url: str) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        tables = {
            name
            for (name,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            )
            if name not in POSTGRES_ONLY_TABLES
        }
        schema: dict = {"tables": tables, "columns": set(), "keys": set(), "indexes": set()}
        for table, name, kind, notnull in conn.execute(POSTGRES_COLUMNS):
            if table in tables and (table, name) not in POSTGRES_ONLY_COLUMNS:
                schema["columns"].add((table, name, CLASSES.get(kind, kind), notnull))
        for table, index, unique, primary, partial, _, columns, desc, constraint in conn.execute(
            POSTGRES_INDEXES
        ):
            if table not in tables or index in POSTGRES_ONLY_INDEXES:
                continue
            if primary:
                schema["keys"].add((table, tuple(columns)))
                continue
            if any(c == "rowid" for c in columns) and (table, "rowid") in POSTGRES_ONLY_COLUMNS:
                continue
            keys = tuple(f"{c}{' DESC' if d else ''}" for c, d in zip(columns, desc, strict=True))
            named = "" if constraint else index
            schema["indexes"].add((table, named, bool(unique), keys, bool(partial)))
        schema["triggers"] = {
            row
            for row in conn.execute(POSTGRES_TRIGGERS)
            if row[1] not in POSTGRES_ONLY_TRIGGERS and row[0] in tables
        }
    for table in tables:  # a table without a primary key has the empty one, as in SQLite
        if not any(t == table for t, _ in schema["keys"]):
            schema["keys"].add((table, ()))
    return schema


@pytest.fixture(scope="module")
def schemas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict, dict]]:
    from tests.postgres.server import FAST, running

    path = tmp_path_factory.mktemp("schemas") / "vybe.db"
    open_store(str(path)).close()
    with running(FAST) as server:
        server.admin("CREATE DATABASE schemas")
        open_store(server.url("schemas")).close()
        yield path, postgres_schema(server.url("schemas"))


PARTS = ("tables", "columns", "keys", "indexes", "triggers")


def differences(sqlite_path: Path, on_postgres: dict) -> dict[str, tuple[list, list]]:
    """Per part: what only the SQLite store has, and what only the PostgreSQL one has."""
    on_sqlite = sqlite_schema(sqlite_path)
    found = {}
    for part in PARTS:
        only_sqlite = sorted(on_sqlite[part] - on_postgres[part])
        only_postgres = sorted(on_postgres[part] - on_sqlite[part])
        if only_sqlite or only_postgres:
            found[part] = (only_sqlite, only_postgres)
    return found


def test_both_migration_trees_give_the_same_schema(schemas):
    assert differences(*schemas) == {}


def test_the_comparison_sees_a_column_an_index_and_a_trigger_one_store_lacks(schemas, tmp_path):
    """The check can fail: a migration applied to one store only is a difference."""
    sqlite_path, on_postgres = schemas
    changed = tmp_path / "changed.db"
    with sqlite3.connect(sqlite_path) as source, sqlite3.connect(changed) as target:
        source.backup(target)
    with sqlite3.connect(changed) as conn:
        conn.execute("ALTER TABLE tasks ADD COLUMN extra TEXT")
        conn.execute("DROP INDEX tasks_project")
        conn.execute("DROP TRIGGER messages_typed")
    conn.close()
    found = differences(changed, on_postgres)
    assert found["columns"] == ([("tasks", "extra", "text", False)], [])
    assert found["indexes"] == ([], [("tasks", "tasks_project", False, ("project_id",), True)])
    assert found["triggers"] == ([], [("messages", "messages_typed", "AFTER", "INSERT")])
