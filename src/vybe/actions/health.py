"""The store's housekeeping behind status, doctor, init and upgrade."""

from __future__ import annotations

import os
import sqlite3

from vybe.errors import VybeError
from vybe.store import SqliteStore, Store, health, is_url, open_store
from vybe.store.db import MIN_SQLITE
from vybe.text import to_os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject


def agent_state(store: Store, agent: str) -> JSONObject | None:
    """This agent's state, read in one snapshot that also proves the store answers."""
    with store.snapshot() as conn:
        return health.agent_state(conn, agent)


def _reported(check: Any) -> Any:
    """A check's answer, or what stopped it (a damaged page, a newer store) as its detail:
    doctor reports damage, it does not fail on it."""
    try:
        return check()
    except VybeError as exc:
        return f"{exc.code}: {exc.message}"
    except sqlite3.DatabaseError as exc:
        return f"DB_CORRUPT: {exc}"


def privacy_check(db_path: str) -> dict[str, Any]:
    """Whether others can read what vybe keeps: the config folder, the store (with its -wal
    and -shm), hooks.log and the manifest; any group or other permission is named."""
    import stat

    from vybe import config

    folder = config.config_dir()
    paths = [folder, db_path, db_path + "-wal", db_path + "-shm"]
    paths += [
        os.path.join(folder, name)
        for name in (config.HOOKS_LOG, config.HOOK_MANIFEST, config.CONFIG_CACHE)
    ]
    wide = []
    for path in paths:
        try:
            mode = stat.S_IMODE(os.stat(to_os(path)).st_mode)
        except OSError:
            continue
        if mode & 0o077:
            wide.append(f"{path} is {mode:o}")
    return {
        "name": "privacy",
        "ok": not wide,
        "detail": "; ".join(wide) + " (chmod go-rwx them)" if wide else "only the user can read",
    }


def store_checks(path: str, busy_timeout_ms: int) -> list[dict[str, Any]]:
    """Integrity, the journal mode the file had, pending migrations, the SQLite version; a
    store not made yet (right after `vybe hook install`) is said as such, not an error. A
    PostgreSQL store answers its own: the server, whether it takes writes, migrations."""
    if is_url(path):
        return [privacy_check(path), *_server_checks(path, busy_timeout_ms)]
    if not os.path.exists(to_os(path)):
        return [privacy_check(path), _not_made_yet(path)]
    store = SqliteStore(path, busy_timeout_ms, migrate=False, create=False)
    try:
        integrity = _reported(lambda: health.integrity(store.conn))
        journal = store.found_journal_mode
        pending = _reported(store.pending_migrations)
    finally:
        store.close()
    return [
        privacy_check(path),
        {"name": "integrity", "ok": integrity == "ok", "detail": integrity},
        {"name": "journal_mode", "ok": journal == "wal", "detail": journal},
        {"name": "migrations", "ok": pending == [], "detail": pending or "up to date"},
        {
            "name": "sqlite_version",
            "ok": sqlite3.sqlite_version_info >= MIN_SQLITE,
            "detail": sqlite3.sqlite_version,
        },
    ]


def _server_checks(url: str, busy_timeout_ms: int) -> list[dict[str, Any]]:
    from vybe.store import require_driver

    require_driver()
    from vybe.store.postgres import PgStore

    store = PgStore(url, busy_timeout_ms, migrate=False, create=False)
    try:
        return store.checks()
    finally:
        store.close()


def _not_made_yet(path: str) -> dict[str, Any]:
    """The first hook or write command makes the store: can it, where it will be?"""
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.isdir(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    writable = os.access(folder, os.W_OK | os.X_OK)
    detail = f"no database at {path} yet: the first hook or `vybe init` makes it"
    if not writable:
        detail = f"no database at {path}, and {folder} is not writable: nothing can make it"
    return {"name": "store", "ok": writable, "detail": detail}


def migrate(path: str, busy_timeout_ms: int) -> dict[str, Any]:
    """Apply migrations on a store opened without them, so the names applied are reported,
    then index for search what the store held before its index (a batch per transaction)."""
    from vybe.actions import search

    store = open_store(path, busy_timeout_ms, migrate=False)
    try:
        applied = store.migrate()
        indexed = search.index_backlog(store, batches=1_000_000)
        return {
            "applied": applied,
            "pending": store.pending_migrations(),
            "search_index": indexed,
        }
    finally:
        store.close()
