"""Faults of the disk and of the file: a full disk, a store from a newer vybe, a damaged
page. Each is a stable code (or, for doctor, a report), and what was acknowledged stays."""

from __future__ import annotations

import os
import sqlite3
import subprocess

import pytest

from vybe.actions import tasks
from vybe.errors import VybeError
from vybe.store import SqliteStore
from vybe.store.db import migration_files

pytestmark = pytest.mark.sqlite_only(
    "a SQLite file from a newer vybe, with damaged pages; the server's faults: tests/postgres"
)


def _newer(path) -> None:
    """A store a later vybe migrated: one more migration, one more schema version."""
    SqliteStore(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE later_feature (id INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO schema_migrations VALUES ('0099_later_feature.sql', 't')")
    conn.execute(f"PRAGMA user_version={len(migration_files()) + 1}")
    conn.close()


@pytest.mark.parametrize("argv", [["task", "list"], ["task", "create", "--title", "t"]])
def test_a_store_from_a_newer_vybe_is_refused_naming_its_version(vybe, argv):
    _newer(vybe.db_path)
    refused = vybe.refused("STORE_TOO_NEW", *argv)
    context = refused.envelope["error_context"]
    assert context["schema_version"] == len(migration_files()) + 1
    assert context["unknown_migrations"] == ["0099_later_feature.sql"]
    assert context["this_vybe_knows"] == len(migration_files())


def test_a_store_whose_migration_names_this_vybe_does_not_know_is_refused(vybe):
    SqliteStore(vybe.db_path).close()
    vybe.sql("UPDATE schema_migrations SET name = '0001_renamed.sql' WHERE name LIKE '0001%'")
    vybe.sql("PRAGMA user_version=0")
    vybe.refused("STORE_TOO_NEW", "task", "list")


def test_doctor_reports_a_newer_store_instead_of_failing(vybe):
    _newer(vybe.db_path)
    checks = {c["name"]: c for c in vybe.ok("doctor")["checks"]}
    assert not checks["migrations"]["ok"]
    assert "0099_later_feature.sql" in str(checks["migrations"]["detail"])


def _damaged(vybe) -> None:
    """A store of a few hundred events with every third page of the event log overwritten."""
    store = SqliteStore(vybe.db_path)
    task = tasks.create(store, "a", "r0", title="t")["task"]["id"]
    for n in range(300):
        tasks.note(store, "a", f"r{n + 1}", task_id=task, message="x" * 200)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    leaves = store.conn.execute(  # the event log's pages and its indexes': not the schema's
        "SELECT pageno FROM dbstat WHERE pagetype = 'leaf' AND name IN"
        " (SELECT name FROM sqlite_master WHERE tbl_name = 'events') ORDER BY pageno"
    ).fetchall()
    store.close()
    with open(vybe.db_path, "r+b") as file:
        for (page,) in leaves[1::3]:
            file.seek((page - 1) * 4096)
            file.write(b"\xa5" * 4096)


def test_doctor_reports_a_damaged_page_instead_of_failing(vybe):
    _damaged(vybe)
    report = vybe.ok("doctor")
    checks = {c["name"]: c for c in report["checks"]}
    assert report["ok"] is False
    assert checks["integrity"]["ok"] is False


@pytest.mark.parametrize("argv", [["resume", "--peek"], ["events", "--all"], ["resume"]])
def test_reading_a_damaged_store_is_db_corrupt(vybe, argv):
    _damaged(vybe)
    result = vybe(*argv)
    assert result.code == 1 and result.error_code == "DB_CORRUPT", result.envelope


@pytest.fixture
def full_disk(tmp_path):
    """A 2 MiB tmpfs, mounted for this test (only root may mount)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs to fill needs root; run the suite as root to test")
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


def _fill(folder) -> None:
    descriptor = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(descriptor, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(descriptor)


def test_a_full_disk_is_disk_full_and_every_acknowledged_write_survives(full_disk):
    store = SqliteStore(full_disk / "vybe.db")
    acknowledged = []
    with pytest.raises(VybeError) as raised:
        for n in range(100_000):
            acknowledged.append(tasks.create(store, "a", f"r{n}", title="t" * 400)["task"]["id"])
    assert raised.value.code == "DISK_FULL"
    assert len(acknowledged) > 10
    store.close()
    reopened = sqlite3.connect(full_disk / "vybe.db")
    found = {r[0] for r in reopened.execute("SELECT id FROM tasks")}
    assert set(acknowledged) <= found
    assert reopened.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize("argv", [["init"], ["task", "create", "--title", "t"]])
def test_init_and_writes_on_a_full_disk_are_disk_full(vybe, full_disk, argv):
    vybe.env["VYBE_CONFIG_DIR"] = str(full_disk / "config")
    _fill(full_disk)
    result = vybe(*argv, "--db-path", str(full_disk / "vybe.db"))
    assert (result.code, result.error_code) == (1, "DISK_FULL"), result.envelope
