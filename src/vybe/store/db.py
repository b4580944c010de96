"""One connection per process, WAL, BEGIN IMMEDIATE for every write, retry with backoff."""

from __future__ import annotations

import errno
import math
import os
import sqlite3
import time
from collections.abc import Callable
from datetime import timedelta

from vybe import clock, jsonio
from vybe.digest import sha256_hex
from vybe.errors import (
    DatabaseCorrupt,
    DatabaseLocked,
    DatabaseUnavailable,
    DiskFull,
    IdempotencyMismatch,
    InvalidInput,
    ReadOnlyViolation,
    StoreTooNew,
    VersionConflict,
    VybeError,
)
from vybe.store import maintain as ledger
from vybe.store.rows import strict_json
from vybe.text import to_os

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from contextlib import AbstractContextManager
    from typing import Any, TypeVar

    T = TypeVar("T")

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations")
MIN_SQLITE = (3, 35, 0)
WRITE_ATTEMPTS = 8
REQUEST_ID_MAX = 256
QUERY_HINT = "check the SQL; tables: messages, checkpoints, checkpoint_attempts"
# What a write needs of a server's isolation (SQLite serializes every write anyway):
SNAPSHOT = "snapshot"  # the default: a row changed since the write began is a conflict
CHECKED = "checked"  # every statement checks what it changes (CAS, inserts, counter bumps)
SERIAL = "serial"  # reads across rows decide the write (a dependency cycle check)


def migration_files() -> list[str]:
    """The migration scripts' paths, in the order they apply (paths as strings: pathlib
    costs every hook ~3 ms at start-up)."""
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


def _backoff(base: float, attempt: int) -> None:
    """Sleep before retry ``attempt``: exponential, capped at 0.5 s, jittered."""
    import random

    time.sleep(min(0.5, base * 2**attempt) * (0.5 + random.random()))


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _translate(exc: sqlite3.Error, path: str) -> Exception:
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


def args_digest(args: dict[str, Any]) -> str:
    canonical = jsonio.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_hex(canonical.encode("utf-8", "surrogatepass"))


class _Snapshot:
    """``Store.snapshot``'s read transaction, for ``with``. A class, not a contextlib
    generator: contextlib (with abc) costs every hook process about 4M instructions, 3.5% of
    a session start's (docs/architecture.md, performance budgets)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        conn = self.store.conn
        try:
            conn.execute("BEGIN")
        except sqlite3.DatabaseError as exc:
            raise _translate(exc, self.store.path) from None
        return conn

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        conn = self.store.conn
        if conn.in_transaction:
            try:  # noqa: SIM105 (contextlib is what this class avoids)
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # ending a read loses nothing; a damaged file must not hide the error
        if isinstance(error, sqlite3.DatabaseError):
            raise _translate(error, self.store.path) from None


# Connections left to the process's end (``Store.close_at_exit``): referenced here so that
# nothing closes them earlier.
_OPEN_AT_EXIT: list[sqlite3.Connection] = []


class Store:
    """The vybe database of one process; with ``create=False`` it must already exist.

    ``found_journal_mode`` is the mode the file had when opened, before it is set to WAL."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        busy_timeout_ms: int = 5000,
        migrate: bool = True,
        create: bool = True,
    ) -> None:
        self.path = os.fspath(path)
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
            self._open(immutable=not create and _on_read_only_media(self.path))
            if migrate:
                self.migrate()
        except sqlite3.Error as exc:
            raise _translate(exc, self.path) from None

    def _open(self, immutable: bool) -> None:
        """Connect and configure. On read-only media (a read-only mount) SQLite cannot make
        the -shm a WAL store needs even to read, so the file is opened immutable and every
        read works (writes are DB_UNAVAILABLE). But when its -wal and -shm are there, a
        writer elsewhere has them open (Codex's sandbox shows the agent's commands a
        read-only view of the folder its hooks write): the file is opened read-only, not
        immutable, so that reads see what that WAL holds (immutable ignores it)."""
        if immutable:
            from urllib.parse import quote

            live = all(os.path.exists(to_os(self.path + suffix)) for suffix in ("-wal", "-shm"))
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
        into the database with two fsyncs (5 to 19 ms a hook on the loaded 2-core machine).
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
                _backoff(0.01, attempt)
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
                    raise _translate(exc, self.path) from None
            except sqlite3.DatabaseError as exc:
                raise _translate(exc, self.path) from None
            _backoff(0.005, attempt)
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

    def read_one(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn``'s answer from a read of one statement, which is consistent on its own (a
        server store runs it outside any transaction: one round trip, not three)."""
        with self.snapshot() as conn:
            return fn(conn)

    def snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction: every query inside sees the same state."""
        return _Snapshot(self)

    def search(self, conn: sqlite3.Connection, query: Any) -> Any:
        """One page of search hits (vybe.store.search.Found), read inside ``snapshot``."""
        from vybe.store import search

        return search.search(conn, query)

    def idempotent(
        self,
        agent: str,
        request_id: str,
        command: str,
        args: dict[str, Any],
        fn: Callable[[sqlite3.Connection], dict[str, Any]],
        isolation: str = SNAPSHOT,
    ) -> dict[str, Any]:
        """Run a mutation once per (agent, request id); a replay returns the first result
        (``isolation`` as ``transact``'s: the ledger's own write is an insert)."""
        if len(request_id) > REQUEST_ID_MAX or not request_id.strip():
            raise InvalidInput(
                f"a request id is 1 to {REQUEST_ID_MAX} characters",
                context={"field": "request_id", "length": len(request_id)},
            )
        try:
            request_id.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput(
                "the request id is not valid UTF-8 text", context={"field": "request_id"}
            ) from None
        digest = args_digest(args)

        def replayed(conn: sqlite3.Connection) -> dict[str, Any] | None:
            row = conn.execute(
                "SELECT command, args_sha256, result_json FROM idempotency"
                " WHERE agent_name = ? AND request_id = ?",
                (agent, request_id),
            ).fetchone()
            if row is None:
                return None
            if row["command"] != command or row["args_sha256"] != digest:
                raise IdempotencyMismatch(
                    f"request id {request_id!r} was already used for different arguments",
                    context={"request_id": request_id, "command": row["command"]},
                    suggested_action="use a new --request-id for a different operation",
                )
            return jsonio.loads(row["result_json"])

        # A ledger row never changes once written: a retry is answered from a plain read,
        # without waiting for the write lock (the check runs again inside the write below).
        first = self.read_one(replayed)
        if first is not None:
            return first

        def body(conn: sqlite3.Connection) -> dict[str, Any]:
            first = replayed(conn)
            if first is not None:
                return first
            result = fn(conn)
            now = clock.now()
            rowid = conn.execute(
                "INSERT INTO idempotency"
                " (agent_name, request_id, command, args_sha256, result_json, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING rowid",
                (agent, request_id, command, digest, strict_json(result), clock.iso(now)),
            ).fetchone()[0]
            retention = timedelta(days=ledger.REQUEST_RETENTION_DAYS)
            ledger.forget_now_and_then(conn, rowid, clock.iso(now - retention))
            return result

        return self.transact(body, isolation)


READ_PRAGMAS = frozenset(
    {
        "table_info",
        "table_xinfo",
        "table_list",
        "index_list",
        "index_info",
        "index_xinfo",
        "foreign_key_list",
        "user_version",
        "schema_version",
        "page_count",
        "page_size",
    }
)
_READ_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)


def _reads_only(action: int, first: str | None, second: str | None, *_: object) -> int:
    """An authorizer that lets a statement read and nothing else: no ATTACH, no VACUUM INTO."""
    if action in _READ_ACTIONS or (action == sqlite3.SQLITE_PRAGMA and first in READ_PRAGMAS):
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def open_readonly(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A connection that cannot write or create files, for ad-hoc queries over the record."""
    from urllib.parse import quote

    require_database(path)
    uri = "file:" + quote(os.path.abspath(path)) + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
        conn.execute("PRAGMA query_only=1")
    except sqlite3.Error as exc:
        raise _translate(exc, os.fspath(path)) from None
    conn.set_authorizer(_reads_only)
    conn.row_factory = sqlite3.Row
    return conn


def _plain(value: object) -> object:
    """A value JSON can carry: blobs as hex, non-finite floats as text."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _too_long(row: Any, max_bytes: int) -> bool:
    """A value alone longer than the output's bytes: the row cannot fit (and is not made JSON)."""
    return any(isinstance(v, (str, bytes)) and len(v) > max_bytes for v in row)


def bounded_rows(
    cursor: Any, names: list[str], limit: int, max_bytes: int, plain: Any
) -> tuple[list[dict[str, Any]], bool]:
    """At most ``limit`` rows of ``cursor`` and ``max_bytes`` of their JSON, each value made
    ``plain``, and whether any were left out."""
    rows: list[dict[str, Any]] = []
    size = 0
    for row in cursor:
        if len(rows) == limit or _too_long(row, max_bytes):
            return rows, True
        item = dict(zip(names, map(plain, row), strict=True))
        size += len(jsonio.dumps(item, default=str))
        if size > max_bytes:
            return rows, True
        rows.append(item)
    return rows, False


# What one ad-hoc query may hold: a value (string or blob, SQLite's SQLITE_LIMIT_LENGTH) and
# all of SQLite's memory in this process (its hard heap limit). Without them one expression
# (zeroblob(1e9), printf('%.*c', 1e9, 'x'), a string doubled by a recursive CTE) took
# gigabytes and ran past the time limit, which is checked only between SQLite's steps.
VALUE_MAX = 32 << 20
HEAP_MAX = 256 << 20


def _hard_heap_setter() -> Any:
    """``sqlite3_hard_heap_limit64`` of the very library the sqlite3 module runs (looked up
    through its extension module, which links or embeds it), or None where it is hidden."""
    import ctypes
    import sys

    try:
        function = ctypes.CDLL(sys.modules["_sqlite3"].__file__).sqlite3_hard_heap_limit64
    except (OSError, AttributeError, KeyError, TypeError):
        return None
    function.restype, function.argtypes = ctypes.c_int64, [ctypes.c_int64]
    return function


def _lower_heap_limit(limit: int) -> Callable[[], None]:
    """Set SQLite's hard heap limit to ``limit`` bytes (or keep a lower one already set);
    what puts it back. The limit is the process's and SQL may only lower it, so it is put
    back through SQLite's C interface; where that is hidden it stays lowered for the rest of
    the process (a command's process ends with its query)."""
    setter = _hard_heap_setter()
    if setter is None:
        pragma = sqlite3.connect(":memory:")
        pragma.execute(f"PRAGMA hard_heap_limit = {int(limit)}")
        pragma.close()
        return lambda: None
    before = setter(limit)
    if 0 < before < limit:
        setter(before)
    return lambda: setter(before)


def _too_large() -> VybeError:
    return VybeError(
        f"the query built a value over {VALUE_MAX >> 20} MiB or needed more than"
        f" {HEAP_MAX >> 20} MiB of memory and was stopped",
        code="QUERY_TOO_LARGE",
        context={"value_max_bytes": VALUE_MAX, "memory_max_bytes": HEAP_MAX},
        suggested_action="aggregate (count, length, substr) instead of building large values",
    )


def query_readonly(
    conn: sqlite3.Connection, sql: str, limit: int, max_bytes: int, seconds: float
) -> tuple[list[dict[str, Any]], bool]:
    """The rows of one read-only statement, at most ``limit`` of them and ``max_bytes`` of
    JSON, and whether any were left out. Past ``seconds`` it is QUERY_TIMEOUT, past
    VALUE_MAX or HEAP_MAX QUERY_TOO_LARGE; a Ctrl-C while SQLite runs stops it and comes
    back as KeyboardInterrupt."""
    stop = Deadline(seconds)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_MAX)
    conn.set_progress_handler(stop, 10_000)
    put_back = _lower_heap_limit(HEAP_MAX)
    try:
        cursor = conn.execute(sql)
        names = [column[0] for column in cursor.description or ()]
        return bounded_rows(cursor, names, limit, max_bytes, _plain)
    except MemoryError:
        raise _too_large() from None
    except sqlite3.Error as exc:
        stop.explain(exc)
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_TOOBIG":
            raise _too_large() from None
        text = str(exc).lower()
        if any(word in text for word in ("readonly", "read-only", "query_only", "authoriz")):
            raise ReadOnlyViolation(
                "this query would write; vybe data query only reads",
                suggested_action="use a SELECT statement",
            ) from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
        put_back()


class Deadline:
    """SQLite's progress handler: a non-zero answer interrupts the statement. A Ctrl-C
    raises inside the handler (Python runs signal handlers there), which sqlite3 takes as
    an interruption and swallows; so a statement interrupted before its deadline was
    stopped by Ctrl-C, and KeyboardInterrupt is raised again."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def __call__(self) -> int:
        return int(time.monotonic() > self.deadline)

    def explain(self, exc: sqlite3.Error) -> None:
        if "interrupted" not in str(exc).lower():
            return
        if time.monotonic() <= self.deadline:
            raise KeyboardInterrupt from None
        raise VybeError(
            f"the query ran past its time limit of {self.seconds:g} s and was stopped",
            code="QUERY_TIMEOUT",
            context={"seconds": self.seconds},
            suggested_action="narrow the query (a WHERE, a LIMIT, no unbounded recursion)",
        ) from None
