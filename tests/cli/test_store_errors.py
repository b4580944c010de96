"""A store that cannot be used answers with a stable error code and is left as it was."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from vybe.store.db import migration_files

WRITE = ["task", "create", "--title", "t"]
READ = ["task", "list"]

pytestmark = pytest.mark.sqlite_only(
    "the SQLite file's faults: paths, folders, foreign files, a writer's lock, WAL mode"
)


@pytest.mark.parametrize("argv", [WRITE, READ], ids=["write", "read"])
def test_a_db_path_under_a_missing_unwritable_folder_is_db_unavailable(vybe, argv):
    vybe.refused("DB_UNAVAILABLE", *argv, "--db-path", "/proc/vybe-nope/vybe.db")


@pytest.mark.parametrize("argv", [WRITE, READ], ids=["write", "read"])
def test_a_db_path_that_is_a_folder_is_db_unavailable(vybe, tmp_path, argv):
    vybe.refused("DB_UNAVAILABLE", *argv, "--db-path", str(tmp_path))


def test_a_db_path_below_a_regular_file_is_db_unavailable(vybe, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    vybe.refused("DB_UNAVAILABLE", *WRITE, "--db-path", str(blocker / "vybe.db"))


@pytest.mark.parametrize("argv", [WRITE, READ, ["doctor"], ["upgrade"]], ids=" ".join)
def test_a_file_that_is_not_sqlite_is_db_corrupt_and_left_untouched(vybe, tmp_path, argv):
    bogus = tmp_path / "notes.txt"
    bogus.write_bytes(b"these are my notes, not a database\n" * 50)
    vybe.refused("DB_CORRUPT", *argv, "--db-path", str(bogus))
    assert bogus.read_bytes() == b"these are my notes, not a database\n" * 50


def test_status_reports_a_broken_store_and_status_check_fails(vybe, tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("not sqlite")
    db = vybe.ok("status", "--db-path", str(bogus))["db"]
    assert (db["ok"], db["error_code"]) == (False, "DB_CORRUPT")
    refused = vybe.refused("STATUS_CHECK_FAILED", "status", "--check", "--db-path", str(bogus))
    assert refused.envelope["error_context"]["cause"] == "DB_CORRUPT"


@pytest.fixture
def locked(vybe):
    """Another process holds the write lock (BEGIN IMMEDIATE) until the test ends."""
    vybe.task("existing")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            f"c = sqlite3.connect({str(vybe.db_path)!r}, isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\n"
            "print('locked', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline() == "locked\n"
    vybe.env["VYBE_BUSY_TIMEOUT_MS"] = "200"
    yield vybe
    holder.communicate("")


def test_a_write_past_the_busy_timeout_is_db_locked_about_the_timeout(locked):
    started = time.monotonic()
    locked.refused("DB_LOCKED", *WRITE)
    assert time.monotonic() - started < 1.5


def test_reads_still_answer_while_another_process_holds_the_write_lock(locked):
    assert locked.ok(*READ)["count"] == 1


READS = [
    ["status", "--check"],
    ["resume", "--peek"],
    ["events"],
    ["task", "list"],
    ["task", "get", "t"],
    ["memory", "list"],
    ["memory", "get", "-k", "k"],
    ["session", "list"],
    ["data", "query", "--sql", "SELECT 1"],
]


@pytest.mark.parametrize("argv", READS, ids=" ".join)
def test_a_read_of_a_missing_store_creates_nothing(vybe, tmp_path, argv):
    missing = tmp_path / "nowhere" / "x.db"
    result = vybe(*argv, "--db-path", str(missing))
    assert not result.envelope["success"]
    assert not missing.parent.exists()


def test_doctor_of_a_missing_store_reports_it_and_the_rest_and_makes_nothing(vybe, tmp_path):
    """Right after `vybe hook install`, before any session made the store."""
    missing = tmp_path / "nowhere" / "x.db"
    report = vybe.ok("doctor", "--db-path", str(missing))
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["store"]["ok"] and "yet" in checks["store"]["detail"]
    assert {"hooks_claude", "hooks_codex"} <= set(checks)
    assert not missing.parent.exists()


def test_a_read_of_a_missing_store_says_how_to_make_one(vybe, tmp_path):
    missing = tmp_path / "x.db"
    result = vybe("task", "list", "--db-path", str(missing))
    assert result.error_code == "DB_UNAVAILABLE"
    assert "vybe init" in result.envelope["error"]
    assert not missing.exists()


def test_status_of_a_missing_store_reports_it_does_not_exist(vybe, tmp_path):
    missing = tmp_path / "nowhere" / "x.db"
    db = vybe.ok("status", "--db-path", str(missing))["db"]
    assert (db["exists"], db["ok"], db["error_code"]) == (False, False, "DB_UNAVAILABLE")
    assert not missing.parent.exists()


def test_status_of_a_folder_is_not_ok(vybe, tmp_path):
    db = vybe.ok("status", "--db-path", str(tmp_path))["db"]
    assert (db["exists"], db["ok"]) == (False, False)


@pytest.mark.no_store
def test_init_makes_the_store_with_every_migration_and_says_so_once(vybe):
    first = vybe.ok("init")
    every = [os.path.basename(f) for f in migration_files()]
    assert (first["database_created"], first["migrations_applied"]) == (True, every)
    again = vybe.ok("init")
    assert (again["database_created"], again["migrations_applied"]) == (False, [])


def test_a_write_creates_a_missing_store_and_its_folder(vybe, tmp_path):
    missing = tmp_path / "nowhere" / "x.db"
    vybe.ok("task", "create", "--title", "t", "--db-path", str(missing))
    assert vybe.ok("task", "list", "--db-path", str(missing))["count"] == 1


def test_doctor_reports_a_store_that_was_not_in_wal_mode(vybe):
    vybe.ok("init")
    vybe.sql("PRAGMA journal_mode=DELETE")
    check = next(c for c in vybe.ok("doctor")["checks"] if c["name"] == "journal_mode")
    assert (check["ok"], check["detail"]) == (False, "delete")
    again = next(c for c in vybe.ok("doctor")["checks"] if c["name"] == "journal_mode")
    assert (again["ok"], again["detail"]) == (True, "wal")
