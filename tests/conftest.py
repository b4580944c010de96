"""Shared fixtures: a fresh store per test and a way to run `vybe` as agents do.

Commands run in-process through ``vybe.cli.main.run`` (the executable's own entry point) with
the test's environment, stdin and working folder swapped in, which is what a process would
see; ``Vybe.process`` runs the installed executable where the process boundary is the point.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

VYBE = str(Path(sys.executable).with_name("vybe"))
DEFAULT_AGENT = "default"  # the fixture's config.yaml names it: no command runs unnamed


# Real Claude Code and Codex transcripts, with their sources and licenses (README.md there).
TRANSCRIPTS = Path(__file__).with_name("fixtures") / "transcripts"


def pytest_configure(config: pytest.Config) -> None:
    """Test folders on a memory file system where there is one: a fresh store per test costs
    a third as much there (no disk flushes), and nothing a test checks depends on the disk."""
    if config.option.basetemp or hasattr(config, "workerinput"):
        return  # chosen by hand, or a worker under a controller that chose already
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        config.option.basetemp = tempfile.mkdtemp(prefix="vybe-tests-", dir="/dev/shm")
        config.add_cleanup(lambda: shutil.rmtree(config.option.basetemp, ignore_errors=True))


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection built (every module, the parametrized cases) lives for the whole run:
    moved out of the collector's way, each full collection a test triggers stays short."""
    gc.collect()
    gc.freeze()


_THREADS_AT_START: dict[Path, set[threading.Thread]] = {}


def pytest_runtest_setup(item: pytest.Item) -> None:
    _THREADS_AT_START.setdefault(item.path, set(threading.enumerate()))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """No test file leaves a server's loop running once its fixtures are gone: a loop that
    outlives its server spins on the closed socket and slows every later test in the worker
    (ProxyServer.start)."""
    yield
    if nextitem is not None and nextitem.path == item.path:
        return
    started = set(threading.enumerate()) - _THREADS_AT_START.pop(item.path, set())
    loops = [thread for thread in started if "serve_forever" in thread.name]
    for loop in loops:
        loop.join(timeout=1)
    left = [loop.name for loop in loops if loop.is_alive()]
    assert not left, f"{item.path.name} left server loops running: {left}"


@dataclass
class Result:
    code: int
    envelope: dict[str, Any]
    stderr: str

    @property
    def data(self) -> Any:
        assert self.envelope["success"], self.envelope
        return self.envelope["data"]

    @property
    def error_code(self) -> str:
        assert not self.envelope["success"], self.envelope
        return self.envelope["error_code"]


@dataclass
class Streams:
    """What an in-process run wrote, as a process's stdout and stderr would hold it."""

    stdout: io.BytesIO
    stderr: io.BytesIO

    @property
    def out(self) -> str:
        return self.stdout.getvalue().decode("utf-8", "replace")

    @property
    def err(self) -> str:
        return self.stderr.getvalue().decode("utf-8", "replace")


def _text_stream(buffer: io.BytesIO) -> io.TextIOWrapper:
    return io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape", write_through=True)


def _environ_becomes(env: dict[str, str]) -> None:
    """Make the process's environment ``env``, changing only the variables that differ
    (a test's differs in a few; clearing and refilling all costs a putenv each)."""
    for name in [name for name in os.environ if name not in env]:
        del os.environ[name]
    for name, value in env.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


@contextlib.contextmanager
def in_process(
    env: dict[str, str], stdin: bytes = b"", cwd: Path | None = None, argv: list[str] | None = None
) -> Iterator[Streams]:
    """Run code as a `vybe` process would: this environment, stdin, folder; output captured.

    It swaps process-wide state, so only the main thread may use it: concurrency tests start
    real processes (``Vybe.process``)."""
    assert threading.current_thread() is threading.main_thread(), "use Vybe.process in threads"
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams, saved_argv = (sys.stdin, sys.stdout, sys.stderr), sys.argv
    sys.argv = [VYBE, *(argv or [])]
    streams = Streams(io.BytesIO(), io.BytesIO())
    _environ_becomes(env)
    if cwd is not None:
        os.chdir(cwd)
    sys.stdin = _text_stream(io.BytesIO(stdin))
    sys.stdout, sys.stderr = _text_stream(streams.stdout), _text_stream(streams.stderr)
    try:
        yield streams
    finally:
        wrappers = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        for wrapper in wrappers:  # keep the buffers readable once the wrappers are gone
            with contextlib.suppress(ValueError):
                wrapper.flush()
                wrapper.detach()
        os.chdir(saved_cwd)
        _environ_becomes(saved_env)


class Vybe:
    """Runs `vybe` against one store: in-process by default, as a real process on request."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.db_path = home / "vybe.db"
        self.location = str(self.db_path)  # what open_store takes: a file or a server's URL
        # Nothing of the developer's own vybe settings (VYBE_PRETTY_JSON, VYBE_CLAIM_LEASE,
        # VYBE_CLOCK_OFFSET, …) reaches a test: each starts from vybe's defaults.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("VYBE_")}
        self.env.update(
            VYBE_DB_PATH=str(self.db_path), VYBE_CONFIG_DIR=str(home / "config"), HOME=str(home)
        )
        # A hook process on a server store starts the local service (vybe.cli.service):
        # the one a test's hooks start goes soon after the test, not ten minutes later.
        self.env["VYBE_SERVICE_IDLE_S"] = "10"
        # Every command acts as an agent named explicitly, as `vybe init --agent` sets one
        # up: the agent "default" (a hook acts as its own, claude or codex, all the same).
        self.config_dir = home / "config"
        self.config_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        config_file = self.config_dir / "config.yaml"
        config_file.write_text(f"default_agent: {DEFAULT_AGENT}\n")
        config_file.chmod(0o600)  # as vybe writes its files (doctor names a wider one)
        # Housekeeping ran a moment ago: a SessionEnd hook would otherwise start a detached
        # `vybe maintain` that outlives its test and, on the server (one database emptied
        # for each test), writes into the next test's store.
        stamp = self.config_dir / "maintain.stamp"
        stamp.touch(mode=0o600)
        self.parse_config()

    def parse_config(self) -> None:
        """Parse config.yaml into its cache, as the first command after an edit does: later
        commands and hooks read the cache, never PyYAML (tests/cli/test_config_yaml.py)."""
        from vybe import config

        saved = os.environ.get("VYBE_CONFIG_DIR")
        os.environ["VYBE_CONFIG_DIR"] = str(self.config_dir)
        try:
            config.read_settings(str(self.config_dir / "config.yaml"))
        finally:
            if saved is None:
                del os.environ["VYBE_CONFIG_DIR"]
            else:
                os.environ["VYBE_CONFIG_DIR"] = saved

    def __call__(self, *args: str, stdin: str | None = None, agent: str | None = None) -> Result:
        from vybe.cli.main import run

        argv = [*args] + (["--agent", agent] if agent else [])
        stdin_bytes = (stdin or "").encode("utf-8", "surrogateescape")
        with in_process(self.env, stdin_bytes, argv=argv) as streams:
            code, text = run(argv)
        assert streams.out == "", f"a command printed beside its envelope: {streams.out!r}"
        return self._result(code, text + "\n", streams.err)

    def text(self, *args: str, agent: str | None = None) -> tuple[int, str]:
        """A command whose output is not an envelope (``--format text``): code and stdout."""
        from vybe.cli.main import run

        argv = [*args] + (["--agent", agent] if agent else [])
        with in_process(self.env, b"", argv=argv) as streams:
            code, text = run(argv)
        assert streams.out == "" and "Traceback" not in streams.err, streams.err
        return code, text

    def process(self, *args: str, stdin: str | None = None, agent: str | None = None) -> Result:
        """The installed executable in its own process, for what only a process shows."""
        command = [VYBE, *args] + (["--agent", agent] if agent else [])
        done = subprocess.run(
            command, input=stdin, capture_output=True, text=True, env=self.env, check=False
        )
        return self._result(done.returncode, done.stdout, done.stderr)

    @staticmethod
    def _result(code: int, stdout: str, stderr: str) -> Result:
        lines = stdout.strip().splitlines()
        assert len(lines) == 1, f"expected one envelope, got {stdout!r} {stderr!r}"
        assert "Traceback" not in stderr, stderr
        return Result(code, json.loads(lines[0]), stderr)

    def ok(self, *args: str, **kwargs: Any) -> Any:
        result = self(*args, **kwargs)
        assert result.code == 0, result.envelope
        return result.data

    def task(self, title: str, *extra: str, **kwargs: Any) -> str:
        return self.ok("task", "create", "--title", title, *extra, **kwargs)["task"]["id"]

    def dump(self) -> str:
        """The whole store as SQL text, to prove a refused command changed nothing."""
        if not self.db_path.exists():
            return ""
        conn = sqlite3.connect(self.db_path)
        try:
            return "\n".join(conn.iterdump())
        finally:
            conn.close()

    def initialized(self) -> None:
        """The store created, so that what a refused command leaves can be compared."""
        if not self.db_path.exists():
            self.ok("init")

    def close(self) -> None:
        """Nothing to release: every command opened and closed its own connection."""

    def refused(self, code: str, *args: str, exit_code: int = 1, **kwargs: Any) -> Result:
        """Run a command that must fail with ``code`` and leave the store as it was."""
        self.initialized()
        before = self.dump()
        result = self(*args, **kwargs)
        assert result.code == exit_code, result.envelope
        assert result.error_code == code, result.envelope
        assert self.dump() == before
        return result

    def settings(self, agent: str) -> Any:
        """vybe's settings for ``agent`` on this store, as a surface (MCP, hooks) loads them."""
        from vybe import config

        return config.load(agent, db_path=self.location)

    def sql(self, query: str, params: tuple = ()) -> list[tuple]:
        """Read (or, to test the triggers, write) the store directly."""
        conn = sqlite3.connect(self.db_path, isolation_level=None)
        try:
            return conn.execute(query, params).fetchall()
        finally:
            conn.close()

    def event_count(self) -> int:
        return self.sql("SELECT COUNT(*) FROM events")[0][0]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="the store every `vybe`, `store` and `store_location` fixture opens: the SQLite "
        "file (default) or a database on a PostgreSQL server the session starts",
    )
    parser.addoption(
        "--pooler",
        choices=("none", "pgbouncer"),
        default="none",
        help="with --store=postgres: reach the server through PgBouncer in transaction "
        "pooling mode (Debian's pgbouncer package), as managed services put one in front",
    )


POSTGRES_ONLY = Path(__file__).with_name("postgres")


# The files that take longest for how few tests they hold (measured: a test of many
# seconds, a browser or model session per test) run first, longest first. xdist's --dist
# loadfile would hand out the files with the most tests first, so these came last and one
# worker finished the run alone on them (make test passes --no-loadscope-reorder).
LONG_FILES = (
    "context/test_fidelity.py",
    "ui/test_browser.py",
    "integrations/test_mcp_server.py",
    "agent/test_replay.py",
    "integrations/test_killed_writes.py",
    "proxy/test_rewrite_sdk.py",
    "cli/test_chat_checkpoints.py",
    "cli/test_readme.py",
    "privacy/test_planted_paths.py",
    "proxy/test_gemini.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The LONG_FILES first, in their order, then the files with the most tests first (a
    file's tests together, in their order). On PostgreSQL, the tests that open no store
    (none of the fixtures ``store_location`` feeds) ran on SQLite already and are left out;
    ``sqlite_only`` tests are skipped with the reason they give."""
    here = Path(__file__).parent
    rank = {here / name: place for place, name in enumerate(LONG_FILES)}
    assert all(path.is_file() for path in rank), "a file of LONG_FILES is gone"
    per_file = Counter(item.path for item in items)
    items.sort(key=lambda item: (rank.get(item.path, len(rank)), -per_file[item.path]))
    if config.getoption("store") != "postgres":
        return
    kept, left_out = [], []
    for item in items:
        on_server = POSTGRES_ONLY in Path(item.path).parents
        uses_store = "store_location" in getattr(item, "fixturenames", ())
        (kept if on_server or uses_store else left_out).append(item)
        marker = item.get_closest_marker("sqlite_only")
        if marker is not None:
            reason = marker.kwargs.get("reason") or (marker.args[0] if marker.args else "")
            item.add_marker(pytest.mark.skip(reason=f"sqlite_only: {reason}"))
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(scope="session")
def store_kind(request: pytest.FixtureRequest) -> str:
    """Which store the session's tests run on (``--store``)."""
    return request.config.getoption("store")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """One real PostgreSQL server for the session, with the migrated test database."""
    from tests.postgres.database import prepare
    from tests.postgres.server import FAST, running

    with running(FAST) as server:
        prepare(server)
        yield server


@pytest.fixture(scope="session")
def pg_pooler(request: pytest.FixtureRequest, pg_server: Any) -> Iterator[Any]:
    """PgBouncer in transaction mode in front of the session's server (``--pooler``)."""
    from tests.postgres import pooler

    if not pooler.available():
        pytest.skip(f"--pooler=pgbouncer needs {pooler.BINARY} (apt-get install pgbouncer)")
    with pooler.running(pg_server) as started:
        yield started


@pytest.fixture(scope="session")
def made_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite store as the first write makes it (every migration applied), made once per
    worker: each test's store starts as a copy of it (0.1 ms), not migrated again (20 ms
    of CPU, some 1,400 times in a run)."""
    from vybe.store import open_store

    path = tmp_path_factory.mktemp("made") / "vybe.db"
    open_store(str(path)).close()
    return path


@pytest.fixture
def store_location(request: pytest.FixtureRequest, store_kind: str, tmp_path: Path) -> str:
    """A fresh store's location: a SQLite file's path, or the emptied server database's URL
    (through the pooler with ``--pooler=pgbouncer``). The SQLite file is there already,
    as the first write would have made it, unless the test is marked ``no_store``."""
    if store_kind == "postgres":
        from tests.postgres.database import emptied

        url = emptied(request.getfixturevalue("pg_server"))
        if request.config.getoption("pooler") == "pgbouncer":
            return request.getfixturevalue("pg_pooler").through(url)
        return url
    path = tmp_path / "vybe.db"
    if request.node.get_closest_marker("no_store") is None:
        shutil.copyfile(request.getfixturevalue("made_store"), path)
        path.chmod(0o600)  # as vybe makes it
    return str(path)


@pytest.fixture
def store(store_location: str) -> Iterator[Any]:
    """A fresh store, opened (and migrated) directly, for tests below the CLI."""
    from vybe.store import open_store

    opened = open_store(store_location)
    yield opened
    opened.close()


@pytest.fixture
def vybe(store_kind: str, store_location: str, tmp_path: Path) -> Iterator[Vybe]:
    if store_kind == "postgres":
        from tests.postgres.database import PgVybe

        made: Vybe = PgVybe(tmp_path, store_location)
    else:
        made = Vybe(tmp_path)
    yield made
    made.close()


@pytest.fixture
def mcp_tools() -> Iterator[Callable[[Any], Any]]:
    """Makes vybe's MCP tools (vybe.integrations.mcp.tools.Tools) for a store's settings; each
    closes the stores it opened when the test ends."""
    from vybe.integrations.mcp.tools import Tools

    made: list[Tools] = []

    def make(settings: Any) -> Tools:
        made.append(Tools(settings))
        return made[-1]

    yield make
    for tools in made:
        tools.close()
