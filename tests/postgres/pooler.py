"""PgBouncer in transaction pooling mode in front of the test server, as managed PostgreSQL
services put a pooler in front of theirs: each transaction of a client may run on another
server connection, so nothing a client sets on its session outlives its transaction.

The binary is Debian's `pgbouncer` package (/usr/sbin/pgbouncer). It refuses to run as
root, so as root it runs as `nobody`, as the server does. It listens on 127.0.0.1 only, on
a free port, with trust authentication (the user must still be in its auth file).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

from tests.postgres.server import Server, _demote, free_port, scratch

BINARY = "/usr/sbin/pgbouncer"
# The roles the suite connects as: the superuser, and the teams' roles of
# tests/postgres/test_teams.py (PgBouncer lets in only the users its auth file lists).
USERS = (
    "postgres",
    "team_owner",
    "team_a_agent",
    "team_b_agent",
    "team_ab_agent",
    "auditor",
    "plain_owner",
)


def available() -> bool:
    return os.access(BINARY, os.X_OK)


class Pooler:
    """PgBouncer, pool_mode = transaction, forwarding every database to ``server``."""

    def __init__(self, folder: Path, server: Server) -> None:
        self.folder, self.server = folder, server
        self.port = free_port()
        self.ids = _demote()
        self.version = ""

    def configure(self) -> None:
        (self.folder / "users.txt").write_text("".join(f'"{user}" ""\n' for user in USERS))
        settings = {
            "listen_addr": "127.0.0.1",
            "listen_port": str(self.port),
            "unix_socket_dir": "",
            "auth_type": "trust",
            "auth_file": str(self.folder / "users.txt"),
            "pool_mode": "transaction",
            "max_client_conn": "500",
            "default_pool_size": "40",
            "logfile": str(self.folder / "pgbouncer.log"),
            "pidfile": str(self.folder / "pgbouncer.pid"),
        }
        lines = ["[databases]", f"* = host=127.0.0.1 port={self.server.port}", "[pgbouncer]"]
        lines += [f"{name} = {value}" for name, value in settings.items()]
        (self.folder / "pgbouncer.ini").write_text("\n".join(lines) + "\n")
        if self.ids:
            for path in [self.folder, *self.folder.iterdir()]:
                os.chown(path, *self.ids)
        found = subprocess.run([BINARY, "--version"], capture_output=True, text=True)
        self.version = found.stdout.strip().splitlines()[0] if found.stdout else "PgBouncer"

    def start(self) -> None:
        user = self.ids
        subprocess.run(
            [BINARY, "-d", str(self.folder / "pgbouncer.ini")],
            check=True,
            capture_output=True,
            user=user[0] if user else None,
            group=user[1] if user else None,
            extra_groups=[] if user else None,
            cwd=self.folder,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                import psycopg

                psycopg.connect(self.url("postgres"), connect_timeout=2).close()
                return
            time.sleep(0.05)
        raise RuntimeError("PgBouncer did not answer: " + self.log())

    def stop(self) -> None:
        pidfile = self.folder / "pgbouncer.pid"
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pidfile.read_text().strip()), 15)

    def log(self) -> str:
        path = self.folder / "pgbouncer.log"
        return path.read_text()[-2000:] if path.exists() else ""

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def through(self, url: str) -> str:
        """A URL of the server's, through the pooler instead."""
        return url.replace(f":{self.server.port}/", f":{self.port}/")


@contextlib.contextmanager
def running(server: Server) -> Iterator[Pooler]:
    folder = scratch("vybe-pgbouncer-")
    pooler = Pooler(folder, server)
    try:
        pooler.configure()
        pooler.start()
        yield pooler
    finally:
        pooler.stop()
        shutil.rmtree(folder, ignore_errors=True)
