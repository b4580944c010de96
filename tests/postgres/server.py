"""A real PostgreSQL server in a temporary folder, for the tests and the benchmarks.

The binaries come from the `pgserver` package (a test dependency that ships them) or, where
it is missing, from the system's /usr/lib/postgresql/*/bin. PostgreSQL refuses to run as
root, so as root the cluster belongs to, and the server runs as, the unprivileged `nobody`,
who cannot enter root's home or a `mktemp -d` folder (700), where a clone and its virtualenv
often are: as root, the server runs from a copy of pgserver's binaries made once per build in
a folder every user can enter (SHARED), and keeps its data there too.
It listens on 127.0.0.1 only, on a free port, with trust authentication (a test may add
addresses to listen on and networks to trust, as tests/postgres/test_fleet_load.py's hosts in
network namespaces of their own need).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import importlib.metadata
import importlib.util
import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

UNPRIVILEGED = "nobody"
# Where the server's files are when it runs as nobody: ours alone to write, all to enter.
SHARED = Path("/var/tmp") / f"vybe-postgres-{os.geteuid()}"
# What the server needs of pgserver's wheel, by its place in site-packages: the install, and
# the libraries its binaries find by a path relative to their own ($ORIGIN/../../../).
SHIPPED = ("pgserver/pginstall", "pgserver.libs")
# The server as installed, on 127.0.0.1 only, with room for two hundred clients: every
# commit is written to the log before it is acknowledged and flushed to disk (fsync).
SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "unix_socket_directories": "",
    "max_connections": "200",
    "fsync": "on",
    "synchronous_commit": "on",
    "shared_buffers": "128MB",
    "log_min_messages": "warning",
}
# The tests' server: the log is still written before a commit is acknowledged, so a killed
# server loses nothing acknowledged (the operating system keeps what was written), but not
# flushed, which only a power cut would show; creating a database per test stays fast.
FAST = {"fsync": "off", "full_page_writes": "off"}


def installed() -> Path:
    """The folder holding initdb, pg_ctl and postgres, where they were installed."""
    spec = importlib.util.find_spec("pgserver")  # found, not imported: no side effects
    if spec and spec.submodule_search_locations:
        shipped = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
        if (shipped / "pg_ctl").exists():
            return shipped
    system = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if system:
        return Path(system[-1]).parent
    raise RuntimeError("no PostgreSQL binaries: install the test extra (pgserver)")


def tls_binaries() -> Path | None:
    """A PostgreSQL built with OpenSSL, for a server started with TLS: pgserver's is built
    without it, so the system's /usr/lib/postgresql/*/bin where it has it; None elsewhere."""
    for pg_ctl in sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), reverse=True):
        found = Path(pg_ctl).parent
        built = subprocess.run(
            [str(found / "pg_config"), "--configure"], capture_output=True, text=True
        )
        if "--with-openssl" in built.stdout:
            return found
    return None


def binaries() -> Path:
    """The folder of the binaries the server runs: as root, where nobody can reach them
    (the system's are; pgserver's, inside a virtualenv, are copied to SHARED)."""
    found = installed()
    if _demote() is None or found.parent.name != "pginstall":
        return found
    return copy_for_all(found.parents[2], shared()) / SHIPPED[0] / "bin"


def shared() -> Path:
    """SHARED, made once: refused if it is not our own folder or others may write in it."""
    with contextlib.suppress(FileExistsError):
        SHARED.mkdir(mode=0o755)
        SHARED.chmod(0o755)  # whatever the umask
    found = SHARED.lstat()
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.geteuid() or found.st_mode & 0o022:
        raise RuntimeError(f"{SHARED} is not a folder of ours that only we may write")
    return SHARED


def _build(site: Path) -> str:
    """pgserver's version and a digest of its shipped files' names and sizes: the same for
    every virtualenv it is installed in, so one copy serves every clone on the machine."""
    try:
        version = importlib.metadata.version("pgserver")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    digest = hashlib.sha256()
    for part in SHIPPED:
        for path in sorted((site / part).rglob("*")):
            digest.update(f"{path.relative_to(site)} {path.lstat().st_size}\n".encode())
    return f"{version}-{digest.hexdigest()[:16]}"


def copy_for_all(site: Path, into: Path) -> Path:
    """A copy of pgserver's binaries and libraries from ``site`` (the site-packages folder
    pgserver is in) in ``into``, laid out as there, that every user may read and run; one
    per build, made whole in a staging folder, then renamed into place, so workers starting
    at once make it once and none sees it half made."""
    target = into / f"pgserver-{_build(site)}"
    if target.is_dir():
        return target
    staging = Path(tempfile.mkdtemp(prefix=".pgserver-", dir=into))
    try:
        for part in SHIPPED:
            shutil.copytree(site / part, staging / part, symlinks=True)
        for path in [staging, *staging.rglob("*")]:
            _open_to_all(path)
        with contextlib.suppress(OSError):  # another worker's copy is there already
            staging.rename(target)
        if not target.is_dir():
            raise RuntimeError(f"could not make {target}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _open_to_all(path: Path) -> None:
    """Readable by all, and enterable or runnable by all where its owner may."""
    found = path.lstat()
    if stat.S_ISLNK(found.st_mode):
        return
    wanted = stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH
    if stat.S_ISDIR(found.st_mode) or found.st_mode & stat.S_IXUSR:
        wanted |= stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
    path.chmod(wanted)


def scratch(prefix: str) -> Path:
    """A fresh folder for a server's files: in SHARED as root (nobody runs the server),
    else in the temporary folder."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=shared() if _demote() else None))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _demote() -> tuple[int, int] | None:
    """The (uid, gid) to run the server as: nobody when we are root, else ourselves."""
    if os.geteuid() != 0:
        return None
    user = pwd.getpwnam(UNPRIVILEGED)
    return user.pw_uid, user.pw_gid


class Server:
    """One cluster: ``start``, ``stop``, ``restart``; databases named by ``url``."""

    def __init__(
        self, folder: Path, settings: dict[str, str] | None = None, trusted: Sequence[str] = ()
    ) -> None:
        self.settings = {**SETTINGS, **(settings or {})}
        self.trusted = trusted  # networks beside 127.0.0.1 whose clients are let in
        self.bin = binaries()
        self.folder = folder
        self.data = folder / "data"
        self.port = free_port()
        self.ids = _demote()
        self.version = ""

    def _run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        user = self.ids
        return subprocess.run(
            [str(self.bin / argv[0]), *argv[1:]],
            capture_output=True,
            text=True,
            check=check,
            user=user[0] if user else None,
            group=user[1] if user else None,
            extra_groups=[] if user else None,
            env={**os.environ, "LC_ALL": "C", "TZ": "UTC"},
            cwd=self.folder,
        )

    def init(self) -> None:
        if self.ids:
            os.chown(self.folder, *self.ids)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            for name, value in {**self.settings, "port": str(self.port)}.items():
                conf.write(f"{name} = '{value}'\n")
        with open(self.data / "pg_hba.conf", "a", encoding="utf-8") as hba:
            hba.writelines(f"host all all {network} trust\n" for network in self.trusted)
        self.version = self._run("postgres", "--version").stdout.strip()

    def start(self) -> None:
        log = str(self.folder / "server.log")
        self._run("pg_ctl", "-D", str(self.data), "-l", log, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def restart_immediately(self) -> None:
        """Kill the server as a crash would (no checkpoint), then start it again."""
        self.stop("immediate")
        self.start()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def admin(self, sql: str) -> None:
        """Run one statement as the superuser, outside any transaction (CREATE DATABASE)."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)


@contextlib.contextmanager
def running(
    settings: dict[str, str] | None = None, trusted: Sequence[str] = ()
) -> Iterator[Server]:
    """A started server in a fresh folder, stopped and removed afterwards."""
    folder = scratch("vybe-pg-")
    server = Server(folder, settings, trusted)
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)
