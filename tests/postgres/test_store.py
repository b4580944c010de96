"""The store on PostgreSQL: the dialect in one place, migrations once under a lock, the same
error codes, event ids in commit order, reads that write nothing."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import psycopg
import pytest

from tests.postgres.server import free_port
from vybe.actions import tasks
from vybe.errors import DatabaseLocked, DatabaseUnavailable
from vybe.store import db, dialect, open_store
from vybe.store.postgres import MIGRATIONS_DIR, PgStore

MIGRATIONS = Path(db.MIGRATIONS_DIR)


def test_every_sqlite_migration_has_a_postgresql_twin():
    sqlite = sorted(p.name for p in MIGRATIONS.glob("*.sql"))
    assert sqlite == sorted(p.name for p in Path(MIGRATIONS_DIR).glob("*.sql"))


@pytest.mark.parametrize(
    ("sqlite", "postgresql"),
    [
        (
            "SELECT * FROM t WHERE a = ? AND b LIKE '%x'",
            "SELECT * FROM t WHERE a = %s AND b LIKE '%%x'",
        ),
        ("SET n = MAX(n, ?), m = MAX(m)", "SET n = GREATEST(n, %s), m = MAX(m)"),
        ("WHEN claimed_by IS ? THEN 0", "WHEN claimed_by IS NOT DISTINCT FROM %s THEN 0"),
        ("WHERE a IS NOT ?", "WHERE a IS DISTINCT FROM %s"),
        ("instr(a, ?) > 0", "strpos(a, %s) > 0"),
        ("ROUND(x / 2, 6)", "ROUND(CAST(x / 2 AS NUMERIC), 6)"),
        ("CAST(MAX(a, 0) AS INTEGER)", "CAST(TRUNC(GREATEST(a, 0)) AS BIGINT)"),
        (
            "SELECT id FROM (SELECT id FROM t LIMIT 5) WHERE id > 1",
            "SELECT id FROM (SELECT id FROM t LIMIT 5) AS _sub1 WHERE id > 1",
        ),
        ("SELECT x FROM (SELECT 1 AS x) q", "SELECT x FROM (SELECT 1 AS x) q"),
        (
            "FROM events e CROSS JOIN tasks ON tasks.id = e.task_id",
            "FROM events e JOIN tasks ON tasks.id = e.task_id",
        ),
        ("FROM a CROSS JOIN b", "FROM a CROSS JOIN b"),
        ("LIMIT 1 /*postgresql: FOR UPDATE SKIP LOCKED*/", "LIMIT 1 FOR UPDATE SKIP LOCKED"),
        ("PRAGMA wal_checkpoint(PASSIVE)", "SELECT 0, 0, 0"),
    ],
)
def test_the_dialect_rewrites_what_the_two_spell_differently(sqlite, postgresql):
    assert dialect.to_postgres(sqlite) == postgresql


def test_a_pragma_postgresql_lacks_is_refused_not_sent():
    with pytest.raises(ValueError, match="user_version"):
        dialect.to_postgres("PRAGMA user_version")


def test_migrations_apply_once_even_when_two_stores_start_together(pg_server):
    pg_server.admin("CREATE DATABASE racing_migrations")
    url = pg_server.url("racing_migrations")
    applied: list[list[str]] = []

    def start() -> None:
        store = PgStore(url, migrate=False)
        applied.append(store.migrate())
        store.close()

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = sorted(p.name for p in MIGRATIONS.glob("*.sql"))
    assert sorted(applied, key=len) == [[], [], [], names]
    with contextlib.closing(PgStore(url)) as store:
        assert store.pending_migrations() == []


def test_upgrade_and_doctor_work_on_the_server(vybe):
    assert vybe.ok("upgrade") == {
        "applied": [],
        "pending": [],
        "search_index": {"indexed": 0, "complete": True},
    }
    checks = {c["name"]: c for c in vybe.ok("doctor")["checks"]}
    assert checks["server"]["ok"] and "PostgreSQL" in checks["server"]["detail"]
    assert checks["migrations"]["detail"] == "up to date"
    assert checks["writable"]["ok"]


def test_an_unreachable_server_is_db_unavailable(vybe):
    vybe.env["VYBE_DB_URL"] = f"postgresql://postgres@127.0.0.1:{free_port()}/vybe"
    assert vybe("task", "list").error_code == "DB_UNAVAILABLE"
    assert vybe("task", "create", "--title", "t").error_code == "DB_UNAVAILABLE"


def test_a_read_never_creates_the_store(vybe, pg_server):
    pg_server.admin("CREATE DATABASE never_migrated")
    vybe.env["VYBE_DB_URL"] = pg_server.url("never_migrated")
    assert vybe("task", "list").error_code == "DB_UNAVAILABLE"
    with psycopg.connect(pg_server.url("never_migrated")) as conn:
        assert conn.execute("SELECT to_regclass('tasks')").fetchone()[0] is None


def test_the_db_url_flag_selects_the_server_over_a_db_path(vybe, tmp_path):
    vybe.env["VYBE_DB_PATH"] = str(tmp_path / "elsewhere.db")
    url = vybe.env.pop("VYBE_DB_URL")
    vybe.ok("task", "create", "--title", "on the server", "--db-url", url)
    assert vybe.sql("SELECT title FROM tasks") == [("on the server",)]
    assert not (tmp_path / "elsewhere.db").exists()


def test_a_row_held_past_the_busy_timeout_is_db_locked(pg_url):
    store = open_store(pg_url)
    task = tasks.create(store, "a", "r1", title="t")["task"]
    holder = psycopg.connect(pg_url)
    holder.execute("SELECT 1 FROM tasks WHERE id = %s FOR UPDATE", (task["id"],))
    waiting = open_store(pg_url, busy_timeout_ms=300)
    lease = tasks.clock.parse_duration("10m")
    with pytest.raises(DatabaseLocked):
        tasks.claim(waiting, "b", "r2", task_id=task["id"], project_id=None, lease=lease)
    holder.rollback()
    claimed = tasks.claim(waiting, "b", "r2", task_id=task["id"], project_id=None, lease=lease)
    assert claimed["task"]["claimed_by"] == "b"
    for each in (holder, waiting, store):
        each.close()


def _waiting_on_a_lock(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND datname = current_database()"
        ).fetchone()
        return row[0] > 0


def test_event_ids_are_handed_out_in_commit_order(pg_url):
    first = psycopg.connect(pg_url)
    first.execute("INSERT INTO events (kind, agent_name, created_at) VALUES ('k', 'first', 't')")
    second_id: list[int] = []

    def second() -> None:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            row = conn.execute(
                "INSERT INTO events (kind, agent_name, created_at) VALUES ('k', 'second', 't')"
                " RETURNING id"
            ).fetchone()
            second_id.append(row[0])

    thread = threading.Thread(target=second)
    thread.start()
    while not _waiting_on_a_lock(pg_url):  # the second insert waits for the first commit
        assert thread.is_alive()
    assert second_id == []
    first.commit()
    thread.join()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT agent_name, id FROM events ORDER BY id").fetchall()
    assert [r[0] for r in rows] == ["first", "second"]
    first.close()


def test_a_peek_writes_nothing(vybe, tmp_path):
    task = vybe.task("t")
    vybe.ok("remember", "fact=value")
    vybe.ok("task", "assign", "--id", task, "--to", "default", agent="alice")
    before = vybe.dump()
    data = vybe.ok("resume", "--peek", "--project-dir", str(tmp_path / "new"))
    assert data["focus_rule"] == "rule2" and data["delta_count"] == 3
    vybe.ok("focus")
    vybe.ok("brief")
    assert vybe.dump() == before


def test_a_missing_database_is_db_unavailable(pg_server):
    with pytest.raises(DatabaseUnavailable):
        PgStore(pg_server.url("no_such_database"))


def test_search_on_the_server_finds_what_was_written_and_maintain_has_nothing_to_index(vybe, store):
    from vybe.actions import search
    from vybe.store.search import SearchQuery

    vybe.ok("note", vybe.task("t"), "a findable word")
    found = search.search(store, SearchQuery("findable"))
    assert (found["count"], found["index_complete"]) == (1, True)
    assert vybe.ok("maintain")["search_index"] == {"indexed": 0, "complete": True}


def test_sessions_made_before_0025_take_the_agent_and_project_their_rows_name(
    pg_server, monkeypatch
):
    """0025 on a server store with sessions in it, as on SQLite (tests/store/test_migrations)."""
    from tests.postgres.database import made_before
    from tests.store.test_migrations import OLD_ORIGINS, OLD_SESSIONS
    from vybe.actions import health

    name = "vybe_before_origins"
    old = made_before(pg_server, monkeypatch, name, "0025_session_origin.sql")
    url = pg_server.url(name)

    def fill(conn) -> None:
        for statement in db.split_statements(OLD_SESSIONS):
            conn.execute(statement)

    old.transact(fill)
    old.close()
    assert "0025_session_origin.sql" in health.migrate(url, 5000)["applied"]
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT id, agent_name, project_id FROM sessions").fetchall()
    pg_server.admin(f"DROP DATABASE {name} WITH (FORCE)")
    assert {r[0]: (r[1], r[2]) for r in rows} == OLD_ORIGINS


def _prepared(store) -> list[str]:
    rows = store.conn.raw.execute("SELECT statement FROM pg_prepared_statements")
    return [statement for (statement,) in rows]


def test_a_direct_connections_writes_are_prepared_and_its_reads_never(pg_url, request):
    store = open_store(pg_url)
    task = tasks.create(store, "a", "w0", title="t")["task"]
    for k in range(4):
        tasks.note(store, "a", f"w{k + 1}", task_id=task["id"], message="m")
        with store.snapshot() as conn:
            conn.execute("SELECT title FROM tasks WHERE id = ?", (task["id"],)).fetchone()
    prepared = _prepared(store)
    store.close()
    if request.config.getoption("pooler") == "pgbouncer":
        assert store.prepares is False  # its port is not the server's: nothing is prepared
        return
    assert store.prepares is True
    assert any(s.startswith("INSERT INTO events") for s in prepared), prepared
    assert not any(s.startswith("SELECT title FROM tasks") for s in prepared), prepared


def test_nothing_is_prepared_where_vybe_pg_prepare_is_0(pg_url, monkeypatch):
    monkeypatch.setenv("VYBE_PG_PREPARE", "0")
    store = open_store(pg_url)
    task = tasks.create(store, "a", "z0", title="t")["task"]
    for k in range(4):
        tasks.note(store, "a", f"z{k + 1}", task_id=task["id"], message="m")
    assert store.prepares is False and store.conn.raw.prepare_threshold is None
    store.close()


def test_a_write_prepared_before_an_upgrade_changed_its_table_runs_again(pg_url):
    store = open_store(pg_url)
    if not store.prepares:
        store.close()
        pytest.skip("through a pooler nothing is prepared")
    task = tasks.create(store, "a", "u0", title="t")["task"]
    for k in range(4):
        tasks.note(store, "a", f"u{k + 1}", task_id=task["id"], message="m")
    assert any(s.startswith("SELECT * FROM tasks") for s in _prepared(store))
    with psycopg.connect(pg_url, autocommit=True) as other:
        other.execute("ALTER TABLE tasks ADD COLUMN upgraded_probe INTEGER")
    try:
        noted = tasks.note(store, "a", "u-after", task_id=task["id"], message="after it")
        assert noted["event_id"]
    finally:
        with psycopg.connect(pg_url, autocommit=True) as other:
            other.execute("ALTER TABLE tasks DROP COLUMN upgraded_probe")
        store.close()
