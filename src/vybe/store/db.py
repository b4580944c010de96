"""One connection per process, WAL, BEGIN IMMEDIATE for every write, retry with backoff."""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Callable

from vybe import clock
from vybe.errors import (
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseUnavailable,
    DiskFull,
    StoreTooNew,
    VersionConflict,
)
from vybe.store.base import SNAPSHOT, WRITE_ATTEMPTS, Store, backoff
from vybe.text import to_os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any, TypeVar

    T = TypeVar("T")

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations")
MIN_SQLITE = (3, 35, 0)


def migration_files() -> list[str]:
    """The migration scripts' paths, in the order they apply (paths as strings: pathlib
    is kept off the hook path)."""
    names = sorted(n for n in os.listdir(MIGRATIONS_DIR) if n.endswith(".sql"))
    return [os.path.join(MIGRATIONS_DIR, n) for n in names]


def split_statements(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            if current.strip():
                statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def translate(exc: sqlite3.Error, path: str) -> Exception:
    text = str(exc).lower()
    if "not a database" in text or "malformed" in text:
        return DatabaseCorrupt(
            f"{path} is not a usable vybe database: {exc}",
            context={"path": path},
            suggested_action="point --db-path at a vybe database, or move this file away",
        )
    if any(w in text for w in ("unable to open", "readonly", "read-only", "disk i/o error")):
        return DatabaseUnavailable(
            f"cannot open {path} for writing: {exc}",
            context={"path": str(path)},
            suggested_action="check that the folder exists and is writable, or pass --db-path",
        )
    if "disk is full" in text or "disk full" in text:
        return DiskFull(path)
    if _is_busy(exc):
        return DatabaseLocked(
            f"{path} stayed locked past the timeout",
            context={"path": str(path)},
            suggested_action="retry later; another process holds the write lock",
        )
    return exc


def require_database(path: str | os.PathLike[str]) -> None:
    """Reads never create a store: a missing file is DB_UNAVAILABLE, not an empty database."""
    if not os.path.isfile(to_os(os.fspath(path))):
        raise DatabaseUnavailable(
            f"no database at {path}; run `vybe init` or any write command",
            context={"path": str(path)},
            suggested_action="run `vybe init`, or pass --db-path to an existing database",
        )


def _refuse_special(path: str) -> None:
    """A store is a regular file: /dev/null, /dev/full or a FIFO (whose open would block)
    is DB_UNAVAILABLE before SQLite touches it."""
    import stat

    try:
        mode = os.stat(to_os(path)).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise DatabaseUnavailable(
            f"{path} is not a regular file, so it cannot hold a vybe store",
            context={"path": path},
            suggested_action="pass --db-path to a file (it is made when missing)",
        )


def _on_read_only_media(path: str) -> bool:
    try:
        return bool(os.statvfs(to_os(os.path.dirname(os.path.abspath(path)))).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _dangling_references(conn: sqlite3.Connection) -> int:
    return len(conn.execute("PRAGMA foreign_key_check").fetchall())


class _Snapshot:
    """``Store.snapshot``'s read transaction, for ``with``. A class, not a contextlib
    generator: contextlib is kept off the hook path (docs/architecture.md, performance
    budgets)."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        conn: sqlite3.Connection = self.store.conn
        try:
            conn.execute("BEGIN")
        except sqlite3.DatabaseError as exc:
            raise translate(exc, self.store.path) from None
        return conn

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        conn: sqlite3.Connection = self.store.conn
        if conn.in_transaction:
            try:  # noqa: SIM105 (contextlib is what this class avoids)
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # ending a read loses nothing; a damaged file must not hide the error
        if isinstance(error, sqlite3.DatabaseError):
            raise translate(error, self.store.path) from None


# Connections left to the process's end (``Store.close_at_exit``): referenced here so that
# nothing closes them earlier.
_OPEN_AT_EXIT: list[sqlite3.Connection] = []


class SqliteStore(Store):
    """The vybe database in one SQLite file, one connection per process; with
    ``create=False`` it must already exist.

    ``found_journal_mode`` is the mode the file had when opened, before it is set to WAL."""

    dialect = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        busy_timeout_ms: int = 5000,
        migrate: bool = True,
        create: bool = True,
        read_only: bool = False,
    ) -> None:
        self.path = os.fspath(path)
        self.read_only = read_only
        self.busy_timeout_ms = busy_timeout_ms
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise DatabaseUnavailable(
                f"SQLite {sqlite3.sqlite_version} is too old; vybe needs 3.35 or newer"
            )
        if create:
            self._make_folder()
        else:
            require_database(self.path)
        _refuse_special(self.path)
        try:
            self._open(immutable=read_only or (not create and _on_read_only_media(self.path)))
            if migrate:
                self.migrate()
        except sqlite3.Error as exc:
            raise translate(exc, self.path) from None

    def _open(self, immutable: bool) -> None:
        """Connect and configure. On read-only media (a read-only mount) SQLite cannot make
        the -shm a WAL store needs even to read, so the file is opened immutable and every
        read works (writes are DB_UNAVAILABLE). But when its -wal and -shm are there, a
        writer elsewhere has them open (Codex's sandbox shows the agent's commands a
        read-only view of the folder its hooks write): the file is opened read-only, not
        immutable, so that reads see what that WAL holds (immutable ignores it). A
        ``read_only`` store (`vybe ui`) is always opened that way: it sees others' writes and
        can make none."""
        if immutable:
            from urllib.parse import quote

            live = self.read_only or all(
                os.path.exists(to_os(self.path + suffix)) for suffix in ("-wal", "-shm")
            )
            uri = "file:" + quote(os.path.abspath(self.path)) + "?mode=ro"
            self.conn = sqlite3.connect(
                uri if live else uri + "&immutable=1",
                uri=True,
                isolation_level=None,
                timeout=self.busy_timeout_ms / 1000,
            )
        else:
            self.conn = sqlite3.connect(
                to_os(self.path), isolation_level=None, timeout=self.busy_timeout_ms / 1000
            )
        self.conn.row_factory = sqlite3.Row
        if immutable:
            self.found_journal_mode = "wal"
            self.conn.execute("PRAGMA foreign_keys=ON")
        else:
            self._configure()

    def _make_folder(self) -> None:
        """The store's folder (700 when made here) and the file itself, made 600 before
        SQLite opens it: SQLite gives the -wal and -shm files the database's mode."""
        try:
            path = to_os(self.path)
            os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
            if not os.path.exists(path):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass  # another process made it first
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise DiskFull(self.path) from None
            raise DatabaseUnavailable(
                f"cannot create {self.path}: {exc.strerror}",
                context={"path": self.path},
                suggested_action="pass --db-path to a writable location",
            ) from None

    def _configure(self) -> None:
        c = self.conn
        c.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
        mode = c.execute("PRAGMA journal_mode").fetchone()[0]
        self.found_journal_mode = mode.lower()
        if self.found_journal_mode != "wal":
            self._retry_busy(lambda: c.execute("PRAGMA journal_mode=WAL").fetchone())
        c.execute("PRAGMA synchronous=NORMAL")
        c.execute("PRAGMA foreign_keys=ON")

    def close(self) -> None:
        self.conn.close()

    def sync_each_commit(self) -> None:
        """Sync the WAL at every commit of this connection (``synchronous=FULL``: one fsync,
        under a millisecond here). For the hook path, which leaves its connection to the
        process's end (``close_at_exit``) and so skips the checkpoint that would sync what it
        wrote: the person's words a hook records then survive a power cut, not only the
        process."""
        self.conn.execute("PRAGMA synchronous=FULL")

    def close_at_exit(self) -> None:
        """Leave the connection to the process's end, which comes at once through ``os._exit``
        (the hook path): closed as the file's last connection, it would first copy the WAL
        into the database with two fsyncs, a large share of a hook's budget.
        What it wrote is committed in the WAL all the same; a later commit's
        autocheckpoint copies many processes' pages at once, and the next open reads the WAL
        back in well under a millisecond. Should the process end through the interpreter's
        teardown after all, the connection is closed there, as before."""
        _OPEN_AT_EXIT.append(self.conn)

    def lock_file(self, name: str) -> str:
        """A file beside the database that this machine's processes take turns on."""
        return to_os(f"{self.path}-{name}.lock")

    # --- migrations ---------------------------------------------------------------

    def pending_migrations(self) -> list[str]:
        """The migrations this store still needs; a store a newer vybe migrated (a schema
        version or a migration this vybe does not know) is STORE_TOO_NEW."""
        files = migration_files()
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version == len(files):
            return []
        exists = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
        ).fetchone()
        applied = (
            {r[0] for r in self.conn.execute("SELECT name FROM schema_migrations")}
            if exists
            else set()
        )
        known = [os.path.basename(f) for f in files]
        unknown = sorted(applied - set(known))
        if version > len(files) or unknown:
            raise StoreTooNew(self.path, version, unknown, len(files))
        return [n for n in known if n not in applied]

    def migrate(self) -> list[str]:
        """Apply pending migrations under the write lock; returns the names applied.

        Foreign keys are off meanwhile, as SQLite's table-rebuild recipe asks (dropping the
        old table would fire ON DELETE actions); a migration that leaves a reference dangling
        that was not dangling before is rolled back."""
        if not self.pending_migrations():
            return []

        def apply(conn: sqlite3.Connection) -> list[str]:
            dangling = _dangling_references(conn)
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations"
                " (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            applied = {r[0] for r in conn.execute("SELECT name FROM schema_migrations")}
            done = []
            files = migration_files()
            for path in files:
                name = os.path.basename(path)
                if name in applied:
                    continue
                with open(path, encoding="utf-8") as file:
                    script = file.read()
                for statement in split_statements(script):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    (name, clock.now_iso()),
                )
                done.append(name)
            if _dangling_references(conn) > dangling:
                raise DatabaseCorrupt(
                    f"migrating {self.path} would break foreign keys; nothing was changed",
                    context={"path": self.path, "migrations": done},
                    suggested_action="run `vybe doctor` and report the output",
                )
            conn.execute(f"PRAGMA user_version={len(files)}")
            return done

        self.conn.execute("PRAGMA foreign_keys=OFF")
        try:
            return self.transact(apply)
        finally:
            self.conn.execute("PRAGMA foreign_keys=ON")

    # --- transactions -------------------------------------------------------------

    def _retry_busy(self, fn: Callable[[], T]) -> T:
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc) or attempt == WRITE_ATTEMPTS - 1:
                    raise
                backoff(0.01, attempt)
        raise AssertionError("unreachable")

    def transact(self, fn: Callable[[sqlite3.Connection], T], isolation: str = SNAPSHOT) -> T:
        """Run ``fn`` in one BEGIN IMMEDIATE transaction, retrying on busy and CAS conflicts.

        Busy retries stop once the busy timeout has passed in all, so a held lock becomes
        DB_LOCKED after about the timeout, not after every attempt has waited it out.
        ``isolation`` says what ``fn`` needs where writers run at once (a server store):
        SNAPSHOT, CHECKED (READ COMMITTED there: concurrent bumps of one counter wait in
        turn instead of failing) or SERIAL (SERIALIZABLE: two writes whose reads each miss
        the other's write cannot both commit). SQLite serializes every writer anyway.
        """
        deadline = time.monotonic() + self.busy_timeout_ms / 1000
        for attempt in range(WRITE_ATTEMPTS):
            try:
                return self._once(fn)
            except VersionConflict:
                if attempt == WRITE_ATTEMPTS - 1:
                    raise
            except sqlite3.OperationalError as exc:
                last = attempt == WRITE_ATTEMPTS - 1 or time.monotonic() >= deadline
                if not _is_busy(exc) or last:
                    raise translate(exc, self.path) from None
            except sqlite3.DatabaseError as exc:
                raise translate(exc, self.path) from None
            backoff(0.005, attempt)
        raise AssertionError("unreachable")

    def _once(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            result = fn(self.conn)
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        return result

    def snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction: every query inside sees the same state."""
        return _Snapshot(self)

    def search(self, conn: sqlite3.Connection, query: Any) -> Any:
        """One page of search hits (vybe.store.search.Found), read inside ``snapshot``."""
        from vybe.store import search

        return search.search(conn, query)
