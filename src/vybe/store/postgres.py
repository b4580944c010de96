"""The store on a PostgreSQL server, for fleets of agents on many machines.

``PgStore`` keeps ``Store``'s interface (``transact``, ``snapshot``, ``idempotent``,
``migrate``, ``conn``), so actions run unchanged: every statement the store writes reaches
the server through ``Connection``, which translates it once (vybe.store.dialect) and
returns rows that read as SQLite's do (by index and by name, numbers as int or float).

Concurrency is the server's: a write runs in one REPEATABLE READ transaction, so a row
another transaction changed since this one began cannot be overwritten (the second writer
gets a serialization failure); a task is picked with ``FOR UPDATE SKIP LOCKED``. Conflicts,
deadlocks and unique-key races are retried with backoff inside the busy budget, as SQLite's
busy retries are; a lock held past the budget is DB_LOCKED (``lock_timeout``); a server
that cannot be reached or goes away is DB_UNAVAILABLE, and the next call connects again.

Time is the server's: each transaction (a write's attempt, a snapshot) reads ``now()`` in
the round trip of its BEGIN and holds that one reading (vybe.clock.Held) for every
timestamp it writes and every lease it judges, so agents whose machines' clocks disagree
still agree on when a lease ends.
psycopg is imported here only, and this module only when a URL selects PostgreSQL.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import psycopg
from psycopg import errors as pg_errors
from psycopg.adapt import Loader
from psycopg.rows import tuple_row

from vybe import clock
from vybe.config import redact
from vybe.errors import (
    DatabaseLocked,
    DatabaseUnavailable,
    ReadOnlyViolation,
    VersionConflict,
    VybeError,
)
from vybe.store import dialect, teams
from vybe.store.base import CHECKED, SERIAL, SNAPSHOT, WRITE_ATTEMPTS, Store, backoff
from vybe.store.db import migration_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), "migrations", "postgresql")
TEAM_AMBIGUOUS = "VY002"  # vybe_team(): a writer in several teams named none
MIGRATION_LOCK = (7391, 0)  # the advisory lock migrations take turns on
# A write's statement is prepared on the server from its third run on one connection
# (PgStore.prepares): planned once, with its policies' checks, not again each time.
PREPARE_AFTER = 2
# A write's BEGIN for what it needs (Store.transact's ``isolation``): CHECKED waits for
# rows another transaction holds and reads them anew; SERIAL fails one of two writes that
# each read what the other wrote.
WRITES = {
    SNAPSHOT: "BEGIN ISOLATION LEVEL REPEATABLE READ",
    CHECKED: "BEGIN ISOLATION LEVEL READ COMMITTED",
    SERIAL: "BEGIN ISOLATION LEVEL SERIALIZABLE",
}
READ = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
# A transaction left open by a client that hangs (not one that dies: the server sees that
# at once) gives its locks back after this long.
IDLE_IN_TRANSACTION_MS = 60_000
# Lost races, retried while the busy budget lasts: another transaction changed the row, a
# deadlock was broken, a concurrent insert took the same key first.
RETRIED = (
    pg_errors.SerializationFailure,
    pg_errors.DeadlockDetected,
    pg_errors.UniqueViolation,
)


class _Number(Loader):
    """NUMERIC as SQLite hands it out: whole numbers as int (SUM), others as float (ROUND)."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode("ascii")
        if text.lstrip("-").isdigit():
            return int(text)
        return float(text)


class Row:
    """One result row, read by position or by column name, as ``sqlite3.Row``."""

    __slots__ = ("_index", "_values")

    def __init__(self, index: dict[str, int], values: tuple[Any, ...]) -> None:
        self._index, self._values = index, values

    def __getitem__(self, key: int | str) -> Any:
        return self._values[key if isinstance(key, int) else self._index[key]]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def keys(self) -> list[str]:
        return list(self._index)


def _named_rows(cursor: Any) -> Callable[[tuple[Any, ...]], Row]:
    names = [column.name for column in cursor.description or ()]
    index: dict[str, int] = {}
    for i, name in enumerate(names):
        index.setdefault(name, i)  # the first of two same-named columns, as SQLite's
    return lambda values: Row(index, values)


class Cursor:
    """A psycopg cursor that takes the store's SQLite-flavoured statements; ``prepare``:
    whether they may become prepared statements (a write's, on a connection that reaches the
    server itself: PgStore.prepares)."""

    def __init__(self, raw: Any, prepare: bool = False) -> None:
        self._raw = raw
        self._prepare = None if prepare else False  # None: psycopg's threshold decides

    @property
    def row_factory(self) -> Any:
        return self._raw.row_factory

    @row_factory.setter
    def row_factory(self, factory: Any) -> None:
        self._raw.row_factory = tuple_row if factory is None else _named_rows

    def execute(self, sql: str, params: Any = ()) -> Cursor:
        self._raw.execute(dialect.to_postgres(sql), tuple(params), prepare=self._prepare)
        return self

    def executemany(self, sql: str, rows: Any) -> Cursor:
        self._raw.executemany(dialect.to_postgres(sql), [tuple(r) for r in rows])
        return self

    def fetchone(self) -> Any:
        return self._raw.fetchone() if self._raw.description else None

    def fetchall(self) -> list[Any]:
        return self._raw.fetchall() if self._raw.description else []

    def fetchmany(self, size: int) -> list[Any]:
        rows: list[Any] = self._raw.fetchmany(size)
        return rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())

    @property
    def rowcount(self) -> int:
        count: int = self._raw.rowcount
        return count

    @property
    def description(self) -> Any:
        return self._raw.description

    def close(self) -> None:
        self._raw.close()


class Connection:
    """What the store's row modules call ``conn``, over one psycopg connection."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.later: list[tuple[str, tuple[Any, ...]]] = []
        self.writing = False  # inside a write's transaction (PgStore._attempt)

    def after_commit(self, sql: str, params: Any) -> None:
        """Run ``sql`` once this transaction has committed, as a statement of its own (a
        counter bump: its row locks last one statement, not the whole transaction)."""
        self.later.append((dialect.to_postgres(sql), tuple(params)))

    def cursor(self) -> Cursor:
        return Cursor(self.raw.cursor(row_factory=_named_rows), self.writing)

    def execute(self, sql: str, params: Any = ()) -> Cursor:
        return self.cursor().execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> Cursor:
        return self.cursor().executemany(sql, rows)

    @property
    def in_transaction(self) -> bool:
        busy: bool = self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE
        return busy

    def close(self) -> None:
        self.raw.close()


def begin(raw: Any, statement: str, limits: str = "") -> datetime:
    """Run ``statement`` (a BEGIN) and read the server's clock in the same round trip: the
    transaction's start time, ``now()``, which every later ``now()`` of the transaction
    repeats (an attempt retried begins again, and reads again). In UTC whatever the
    session's time zone: a lease added to a time in a zone with summer time would be added
    to its wall clock. ``limits``: ``SET LOCAL`` statements for this transaction alone."""
    # No parameters: one simple query, whatever follows the clock's reading.
    cursor = raw.execute(f"{statement}; SELECT now(){limits}")
    cursor.nextset()
    now: datetime = cursor.fetchone()[0].astimezone(UTC)
    return now


def team_setting(team: str | None) -> str:
    """The ``SET LOCAL`` naming the team a transaction's new rows belong to, or nothing."""
    if not team:
        return ""
    from vybe.store.teams import checked_name

    return f"; SET LOCAL vybe.team = '{checked_name('team', team)}'"


def _is_gone(exc: BaseException) -> bool:
    """The server cannot be reached, shut down, or dropped the connection."""
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return not isinstance(exc, pg_errors.LockNotAvailable | pg_errors.QueryCanceled)
    state = getattr(exc, "sqlstate", None) or ""
    return state.startswith(("08", "57P", "3D", "28", "53"))


def translate(exc: BaseException, where: str) -> Exception:
    """A psycopg error as the store's stable codes, or itself when it is a defect."""
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction | pg_errors.InsufficientPrivilege):
        return ReadOnlyViolation(
            f"{where} refused a write: {exc}".strip(),
            suggested_action="use a role that may write to the vybe database",
        )
    if getattr(exc, "sqlstate", None) == TEAM_AMBIGUOUS:
        return VybeError(
            exc.diag.message_primary or str(exc),  # type: ignore[attr-defined]
            code="TEAM_AMBIGUOUS",
            suggested_action="name the team this agent writes to: VYBE_TEAM=<team>",
        )
    if isinstance(exc, (pg_errors.LockNotAvailable, pg_errors.QueryCanceled, *RETRIED)):
        return DatabaseLocked(
            f"{where} stayed locked past the timeout",
            context={"database": where},
            suggested_action="retry later; another agent holds the rows this needs",
        )
    if _is_gone(exc):
        return DatabaseUnavailable(
            f"cannot reach the vybe database at {where}: {str(exc).strip()}",
            context={"database": where},
            suggested_action="check that the server is up and the URL (--db-url, VYBE_DB_URL)",
        )
    return exc  # type: ignore[return-value]


class PgStore(Store):
    """The vybe database on a PostgreSQL server; ``create=False`` wants it migrated already."""

    dialect = "postgresql"
    replay_read_first = False
    kept = False  # kept open between the local service's requests
    prepares = False  # writes' statements are prepared (_reaches_the_server)

    def __init__(
        self, url: str, busy_timeout_ms: int = 5000, migrate: bool = True, create: bool = True
    ) -> None:
        self.url = url
        self.path = redact(url)
        self.busy_timeout_ms = busy_timeout_ms
        # Every transaction's own limits: a lock held past the busy budget is DB_LOCKED;
        # and the team its new rows belong to, where VYBE_TEAM names one (migration 0020).
        self.limits = (
            f"; SET LOCAL lock_timeout = {int(busy_timeout_ms)}"
            f"; SET LOCAL idle_in_transaction_session_timeout = {IDLE_IN_TRANSACTION_MS}"
            f"{team_setting(os.environ.get('VYBE_TEAM'))}"
        )
        self._raw: Any = None
        self.conn = self._connect()
        try:
            if not create and "0001_foundation.sql" in self.pending_migrations():
                raise DatabaseUnavailable(
                    f"no vybe store at {self.path}; run `vybe init` or any write command",
                    context={"database": self.path},
                    suggested_action="run `vybe init`, or pass --db-url to an existing store",
                )
            if migrate:
                self.migrate()
        except BaseException:
            # A store refused at its opening (NOT_A_MEMBER, STORE_NEEDS_UPGRADE, none there)
            # leaves no connection behind: the local service's workers live on.
            self.conn.raw.close()
            raise

    def _connect(self) -> Any:  # a Connection, standing in for sqlite3's
        """A connection that keeps no state of its own between transactions, so that a
        pooler in transaction mode (PgBouncer) may hand each one to another server
        connection: no startup options (a pooler refuses them), no prepared statements;
        each transaction sets its own limits (``begin``'s ``limits``)."""
        timeout_s = max(2, -(-self.busy_timeout_ms // 1000))
        try:
            raw = psycopg.connect(
                self.url,
                autocommit=True,
                connect_timeout=timeout_s,
                prepare_threshold=None,
                application_name="vybe",
            )
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None
        raw.adapters.register_loader("numeric", _Number)
        raw.prepare_threshold = PREPARE_AFTER if self.prepares else None
        self._raw = raw
        return Connection(raw)

    def _reaches_the_server(self, port: str) -> None:
        """Whether writes' statements may be prepared: only where the server's own port
        (``port``) is the one connected to. A pooler in transaction mode may run a client's
        next transaction on another server connection, where its prepared statement does
        not exist or another client's has its name (PgBouncer before 1.21, or with
        max_prepared_statements = 0); a pooler listens on a port of its own (PgBouncer's
        6432, Supavisor's 6543). VYBE_PG_PREPARE=0 says so where one shares the server's."""
        self.prepares = (
            port == str(self._raw.info.port) and os.environ.get("VYBE_PG_PREPARE") != "0"
        )
        self._raw.prepare_threshold = PREPARE_AFTER if self.prepares else None

    def _live(self) -> Any:
        """The connection, made again if the last one was lost (a restarted server)."""
        if self._raw is None or self._raw.closed or self._raw.broken:
            self.conn = self._connect()
        return self.conn

    def close(self) -> None:
        """Close the connection; a kept store (vybe.store.keep_server_stores) only ends a
        transaction left open, and stays connected for the next request."""
        if self.kept:
            self._rollback()
        elif self._raw is not None:
            self._raw.close()

    def sync_each_commit(self) -> None:
        """A server's commit is durable when it is acknowledged (synchronous_commit)."""

    def close_at_exit(self) -> None:
        """A server's connection is closed as usual: nothing to save here."""
        self.close()

    def lock_file(self, name: str) -> str:
        """A file this machine's processes take turns on for this server's store (what
        it guards, a transcript import, is local to the machine too)."""
        from vybe.locks import machine_file

        return machine_file(self.url, name)

    # --- migrations ---------------------------------------------------------------

    def pending_migrations(self) -> list[str]:
        names = [os.path.basename(p) for p in migration_files()]
        try:
            conn = self._live()
            found = conn.raw.execute(
                "SELECT to_regclass('schema_migrations'), current_setting('port')"
            ).fetchone()
            self._reaches_the_server(found[1])
            if found[0] is None:
                return names
            applied = {r[0] for r in conn.raw.execute("SELECT name FROM schema_migrations")}
        except pg_errors.InsufficientPrivilege:
            raise VybeError(
                f"the connecting role is in no team of the store at {self.path}",
                code="NOT_A_MEMBER",
                context={"database": self.path},
                suggested_action="have the store's owner run `vybe admin grant ROLE --team T`",
            ) from None
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None
        return [n for n in names if n not in applied]

    def migrate(self) -> list[str]:
        """Apply pending migrations in one transaction, under an advisory lock that makes
        concurrent first runs take turns (READ COMMITTED, so the one that waited sees what
        the first applied)."""
        if not self.pending_migrations():
            return []
        self._need_owner()

        def apply(conn: Connection) -> list[str]:
            raw = conn.raw
            raw.execute("SELECT pg_advisory_xact_lock(%s, %s)", MIGRATION_LOCK)
            raw.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations"
                " (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            applied = {r[0] for r in raw.execute("SELECT name FROM schema_migrations")}
            done = []
            for path in migration_files():
                name = os.path.basename(path)
                if name in applied:
                    continue
                raw.execute(_script(name))  # no parameters: several statements at once
                raw.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (%s, %s)",
                    (name, clock.now_iso()),
                )
                done.append(name)
            from vybe.store.pg_reader import arrange

            arrange(raw)  # the role `vybe data query` reads as, granted the new tables
            teams.arrange(raw)  # and the team members' role
            return done

        return self._transact(apply, "BEGIN")

    def _need_owner(self) -> None:
        """STORE_NEEDS_UPGRADE when a role other than the store's owner finds migrations
        pending: a team member never changes the schema (nor could: it owns no table)."""
        try:
            row = (
                self._live()
                .raw.execute(
                    "SELECT pg_has_role(current_user, relowner, 'MEMBER'),"
                    " pg_get_userbyid(relowner) FROM pg_class"
                    " WHERE oid = to_regclass('schema_migrations')"
                )
                .fetchone()
            )
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None
        if row is not None and not row[0]:
            raise VybeError(
                f"the store at {self.path} has migrations pending that only its owner"
                f" ({row[1]}) may apply",
                code="STORE_NEEDS_UPGRADE",
                context={"database": self.path, "owner": row[1]},
                suggested_action=f"have {row[1]} run `vybe upgrade` once",
            )

    # --- transactions -------------------------------------------------------------

    def transact(self, fn: Callable[[Any], T], isolation: str = SNAPSHOT) -> T:
        return self._transact(fn, WRITES[isolation])

    def _transact(self, fn: Callable[[Any], T], statement: str) -> T:
        """Run ``fn`` in one transaction; lost races retried with backoff while the busy
        budget lasts (CAS conflicts as often as on SQLite)."""
        deadline = time.monotonic() + self.busy_timeout_ms / 1000
        conflicts = 0
        attempt = 0
        replanned = False
        while True:
            try:
                return self._attempt(fn, statement)
            except VersionConflict:
                conflicts += 1
                if conflicts >= WRITE_ATTEMPTS:
                    raise
            except RETRIED as exc:
                if time.monotonic() >= deadline:
                    raise translate(exc, self.path) from None
            except pg_errors.FeatureNotSupported as exc:
                # A statement prepared before another process changed its table's columns
                # (an upgrade): the ROLLBACK dropped every prepared statement; once more.
                if exc.diag.source_function != "RevalidateCachedQuery" or replanned:
                    raise translate(exc, self.path) from None
                replanned = True
            except psycopg.Error as exc:
                raise translate(exc, self.path) from None
            backoff(0.002, min(attempt, 8))
            attempt += 1

    def _begin(self, statement: str) -> tuple[Any, datetime]:
        """``begin`` on the live connection; on one the server dropped since its last
        transaction (a restart, a pooler's recycling, a long idle), once more on a new one:
        a BEGIN that failed ran nothing."""
        conn = self._live()
        try:
            return conn, begin(conn.raw, statement, self.limits)
        except psycopg.OperationalError:
            if not conn.raw.broken:
                raise
        conn = self._live()
        return conn, begin(conn.raw, statement, self.limits)

    def _attempt(self, fn: Callable[[Any], T], statement: str) -> T:
        try:
            conn, reading = self._begin(statement)
            conn.later.clear()
            conn.writing = True
            try:
                with clock.Held(reading):
                    result = fn(conn)
            finally:
                conn.writing = False
            conn.raw.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        for sql, params in conn.later:
            try:
                conn.raw.execute(sql, params)
            except psycopg.Error:
                break  # a count lost, never the acknowledged write; the next call reconnects
        conn.later.clear()
        return result

    def _rollback(self) -> None:
        if self._raw is not None and not self._raw.closed and self.conn.in_transaction:
            try:
                self._raw.execute("ROLLBACK")
            except psycopg.Error:
                self._raw.close()  # the next call connects again

    def read_one(self, fn: Callable[[Any], T]) -> T:
        try:
            return fn(self._live())
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None

    @contextmanager
    def snapshot(self) -> Iterator[Any]:
        """A read-only transaction: every query inside sees the same state."""
        try:
            conn, reading = self._begin(READ)
        except psycopg.Error as exc:
            self._rollback()  # the BEGIN may have run before the clock's reading failed
            raise translate(exc, self.path) from None
        try:
            with clock.Held(reading):
                yield conn
        except psycopg.Error as exc:
            self._rollback()
            raise translate(exc, self.path) from None
        except BaseException:
            self._rollback()
            raise
        try:
            conn.raw.execute("COMMIT")
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None

    def search(self, conn: Any, query: Any) -> Any:
        """One page of search hits on the server's own full-text search (pg_search)."""
        from vybe.store import pg_search

        return pg_search.search(conn, query)

    # --- health -------------------------------------------------------------------

    def checks(self) -> list[dict[str, Any]]:
        """What doctor reports: the server answers, its version, pending migrations."""
        try:
            raw = self._live().raw
            version = raw.execute("SHOW server_version").fetchone()[0]
            recovering = raw.execute("SELECT pg_is_in_recovery()").fetchone()[0]
        except psycopg.Error as exc:
            raise translate(exc, self.path) from None
        pending = self.pending_migrations()
        return [
            {"name": "server", "ok": True, "detail": f"PostgreSQL {version} at {self.path}"},
            {
                "name": "writable",
                "ok": not recovering,
                "detail": "a standby: writes are refused" if recovering else "primary",
            },
            {"name": "migrations", "ok": not pending, "detail": pending or "up to date"},
            self._transport_check(raw),
            self._credentials_check(raw),
        ]

    def _transport_check(self, raw: Any) -> dict[str, Any]:
        """A server beyond this machine is reached over TLS that checks the server's
        certificate and name (sslmode=verify-full), or doctor says it is not."""
        host = raw.info.host or ""
        local = host.startswith("/") or host in ("localhost", "127.0.0.1", "::1")
        tls = bool(raw.pgconn.ssl_in_use)
        mode = next((o.val for o in raw.pgconn.info if o.keyword == b"sslmode"), None)
        verified = tls and mode == b"verify-full"
        if local or verified:
            detail = (
                "TLS, verify-full" if verified else "TLS" if tls else "this machine, without TLS"
            )
            return {"name": "transport", "ok": True, "detail": f"{detail} ({host})"}
        how = "without checking its certificate's name" if tls else "without TLS"
        return {
            "name": "transport",
            "ok": False,
            "detail": f"{host} is reached {how}: add sslmode=verify-full to the URL"
            " (and sslrootcert, the server's CA)",
        }

    def _credentials_check(self, raw: Any) -> dict[str, Any]:
        """The password comes from libpq's own places (PGPASSFILE, a service file,
        PGPASSWORD), never the URL a config file or a command line shows."""
        in_url = bool(psycopg.conninfo.conninfo_to_dict(self.url).get("password"))
        return {
            "name": "credentials",
            "ok": not in_url,
            "detail": "the URL holds a password: move it to ~/.pgpass (PGPASSFILE)"
            if in_url
            else f"connected as {raw.info.user}",
        }


def _script(name: str) -> str:
    path = os.path.join(MIGRATIONS_DIR, name)
    if not os.path.isfile(path):
        raise DatabaseUnavailable(
            f"migration {name} has no PostgreSQL version in this vybe",
            context={"migration": name},
            suggested_action="upgrade vybe",
        )
    with open(path, encoding="utf-8") as file:
        return file.read()
