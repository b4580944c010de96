"""The store interface: what the actions ask of a vybe store, whichever holds it.

Two implementations stand beside it: ``SqliteStore`` (vybe.store.db: one file, the default)
and ``PgStore`` (vybe.store.postgres: a server, for agents on several machines). What both
share is written here once: the idempotency ledger's check and replay."""

from __future__ import annotations

import abc
from datetime import timedelta

from vybe import clock, jsonio, privacy
from vybe.digest import sha256_hex
from vybe.errors import IdempotencyMismatch, InvalidInput
from vybe.store import maintain as ledger
from vybe.store.rows import strict_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager
    from typing import Any, TypeVar

    T = TypeVar("T")

REQUEST_ID_MAX = 256
WRITE_ATTEMPTS = 8  # tries of a write before a conflict or a busy store is the caller's
# What a write needs of a server's isolation (SQLite serializes every write anyway):
SNAPSHOT = "snapshot"  # the default: a row changed since the write began is a conflict
CHECKED = "checked"  # every statement checks what it changes (CAS, inserts, counter bumps)
SERIAL = "serial"  # reads across rows decide the write (a dependency cycle check)


def backoff(base: float, attempt: int) -> None:
    """Sleep before retry ``attempt``: exponential, capped at 0.5 s, jittered."""
    import random
    import time

    time.sleep(min(0.5, base * 2**attempt) * (0.5 + random.random()))


def args_digest(args: dict[str, Any]) -> str:
    """The digest the ledger keeps of a request's arguments (canonical JSON)."""
    canonical = jsonio.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_hex(canonical.encode("utf-8", "surrogatepass"))


class Store(abc.ABC):
    """A vybe store: transactions that retry what a concurrent writer made fail, read
    snapshots, migrations, the ledger that makes each mutation happen once per request id,
    and the record's search. ``conn`` is its connection (sqlite3's, or one that stands in
    for it on a server), for the row modules of vybe.store."""

    dialect: str  # "sqlite" or "postgresql": which SQL the row modules write
    path: str  # where the store is, fit to print (a server's URL without its password)
    busy_timeout_ms: int
    conn: Any
    # Whether a mutation with a request id looks for its first result in a read of its own
    # before its write: on SQLite a retry then never waits for the file's write lock; a
    # server has no such lock, and the write transaction's own check is one round trip less.
    replay_read_first = True

    @abc.abstractmethod
    def close(self) -> None:
        """Close the connection."""

    @abc.abstractmethod
    def sync_each_commit(self) -> None:
        """Make every later commit durable before it returns (the hook path's writes)."""

    @abc.abstractmethod
    def close_at_exit(self) -> None:
        """Leave the connection to the process's end, which follows at once."""

    @abc.abstractmethod
    def lock_file(self, name: str) -> str:
        """A file this machine's processes take turns on for this store."""

    @abc.abstractmethod
    def pending_migrations(self) -> list[str]:
        """The migrations this store still needs (STORE_TOO_NEW for a newer vybe's)."""

    @abc.abstractmethod
    def migrate(self) -> list[str]:
        """Apply the pending migrations; the names applied."""

    @abc.abstractmethod
    def transact(self, fn: Callable[[Any], T], isolation: str = SNAPSHOT) -> T:
        """``fn(conn)`` in one write transaction, retried on conflicts (``isolation``:
        SNAPSHOT, CHECKED or SERIAL, what ``fn`` needs where writers run at once)."""

    @abc.abstractmethod
    def snapshot(self) -> AbstractContextManager[Any]:
        """A read transaction: every query inside sees the same state."""

    @abc.abstractmethod
    def search(self, conn: Any, query: Any) -> Any:
        """One page of search hits (vybe.store.search.Found), read inside ``snapshot``."""

    def read_one(self, fn: Callable[[Any], T]) -> T:
        """``fn``'s answer from a read of one statement, which is consistent on its own."""
        with self.snapshot() as conn:
            return fn(conn)

    def transact_once(
        self,
        once: tuple[str, str] | None,
        command: str,
        args: dict[str, Any],
        fn: Callable[[Any], dict[str, Any]],
    ) -> dict[str, Any]:
        """``fn(conn)`` in one write transaction; with ``once``, (agent, request id), at
        most once for them: a second call gets the first's result (a hook the local
        service ran, run again by its own process)."""
        if once is None:
            return self.transact(fn)
        return self.idempotent(once[0], once[1], command, args, fn)

    def idempotent(
        self,
        agent: str,
        request_id: str,
        command: str,
        args: dict[str, Any],
        fn: Callable[[Any], dict[str, Any]],
        isolation: str = SNAPSHOT,
    ) -> dict[str, Any]:
        """Run a mutation once per (agent, request id); a replay returns the first result
        (``isolation`` as ``transact``'s: the ledger's own write is an insert)."""
        digest = _checked_digest(request_id, args)

        def replayed(conn: Any) -> dict[str, Any] | None:
            return _replayed(conn, agent, request_id, command, digest)

        # A ledger row never changes once written: a retry is answered from a plain read,
        # without waiting for the write lock (the check runs again inside the write below).
        first = self.read_one(replayed) if self.replay_read_first else None
        if first is not None:
            return first

        def body(conn: Any) -> dict[str, Any]:
            first = replayed(conn)
            if first is not None:
                return first
            result = fn(conn)
            now = clock.now()
            rowid = conn.execute(
                "INSERT INTO idempotency"
                " (agent_name, request_id, command, args_sha256, result_json, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING rowid",
                (
                    agent,
                    request_id,
                    command,
                    digest,
                    privacy.scrub_json(strict_json(result)),
                    clock.iso(now),
                ),
            ).fetchone()[0]
            retention = timedelta(days=ledger.REQUEST_RETENTION_DAYS)
            ledger.forget_now_and_then(conn, rowid, clock.iso(now - retention))
            return result

        return self.transact(body, isolation)

    def idempotent_steps(
        self,
        agent: str,
        request_id: str,
        command: str,
        args: dict[str, Any],
        run: Callable[[], dict[str, Any]],
    ) -> dict[str, Any]:
        """A mutation of several transactions that is safe to repeat (maintain): a replay
        returns the first result, recorded once its last step is done; one cut short
        before that runs again on its retry."""
        digest = _checked_digest(request_id, args)
        first = self.read_one(lambda conn: _replayed(conn, agent, request_id, command, digest))
        if first is not None:
            return first
        result = run()
        return self.idempotent(agent, request_id, command, args, lambda conn: result)


def _checked_digest(request_id: str, args: dict[str, Any]) -> str:
    """The arguments' digest, once the request id is one the ledger can hold."""
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
    return args_digest(args)


def _replayed(
    conn: Any, agent: str, request_id: str, command: str, digest: str
) -> dict[str, Any] | None:
    """The first result of this request id, or None; the id used for another command or
    other arguments is IDEMPOTENCY_MISMATCH."""
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
    result: dict[str, Any] = jsonio.loads(row["result_json"])
    return result
