"""The local service: one process a user and config folder that runs the hooks, the status
line and the store's commands (vybe.cli.remote) of a PostgreSQL store on a warm connection,
for processes that then need neither psycopg nor a connection of their own (the caller's
side: vybe.integrations.hooks.service_link; docs/architecture.md, the local service).

Started on demand by the first hook that finds none, detached; it takes the folder's lock
file (a second one exits at once, after asking the one there for its key: one of another
vybe refuses it and exits, and the new one takes its place), binds its socket under a
temporary name and renames it into place (a caller never connects to a half-made one),
and forks ``VYBE_SERVICE_WORKERS`` workers (4) that accept on that one socket, so agents of
one machine do not queue behind each other's commits. A worker serves one request at a
time, each with its caller's environment and working folder (process-wide state: hence
processes, not threads), exactly as the hook process would have run it, on connections of
its own (the supervisor, which forks them, never opens one). It answers only once the
handler has returned, so every write a hook acknowledges is committed on the server.

The supervisor replaces a worker that died, and the service exits after
``VYBE_SERVICE_IDLE_S`` seconds without a request (600), when its config folder is gone,
or when a caller of another key reaches it; a worker whose supervisor was killed finishes
its request and exits, leaving a socket nobody answers on, and the next caller starts a
new service.
"""

from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import signal
import socket
import struct
import time

from vybe import config, jsonio
from vybe.integrations.hooks import service_link

TICK_SECONDS = 1.0  # how often an idle service looks at its idle time and config folder
READ_SECONDS = 5.0  # a caller that connects and sends nothing is dropped after this long
TAKEOVER_SECONDS = 3.0  # how long a new service waits for an old one to let go of the lock
WORKERS_VARIABLE = "VYBE_SERVICE_WORKERS"
WORKERS, WORKERS_MAX = 4, 32
# How long a stopping service waits for its workers' requests in flight before it kills them.
FINISH_SECONDS = 2 * READ_SECONDS


class Shared:
    """What the service's processes share, in an anonymous shared mapping made before they
    fork: when a request was last answered, whether to stop, and each worker's count."""

    HEAD = struct.Struct("dq")  # last answered (time.monotonic, one clock for all), stop

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.map = mmap.mmap(-1, self.HEAD.size + 8 * workers)
        self.touch()

    def touch(self) -> None:
        struct.pack_into("d", self.map, 0, time.monotonic())

    def last(self) -> float:
        return float(struct.unpack_from("d", self.map, 0)[0])

    def stop(self) -> None:
        struct.pack_into("q", self.map, 8, 1)

    def stopping(self) -> bool:
        return bool(struct.unpack_from("q", self.map, 8)[0])

    def count(self, slot: int) -> None:
        at = self.HEAD.size + 8 * slot
        struct.pack_into("q", self.map, at, struct.unpack_from("q", self.map, at)[0] + 1)

    def served(self) -> int:
        return sum(struct.unpack_from(f"{self.workers}q", self.map, self.HEAD.size))


class Service:
    """The socket, the lock, the workers, and what doctor is told."""

    def __init__(self, key: str, path: str, idle: float, workers: int) -> None:
        self.key, self.path, self.idle = key, path, idle
        self.config_dir = config.config_dir()
        # A config folder that was there and is gone ends the service; one never made (a
        # store named by VYBE_DB_URL alone) does not.
        self.had_config = os.path.isdir(self.config_dir)
        self.started = time.time()
        self.supervisor = os.getpid()
        self.shared = Shared(workers)
        self.workers: dict[int, int] = {}  # pid -> slot
        self.listener: socket.socket | None = None
        self.inode = 0

    def status(self) -> dict:
        return {
            "pid": self.supervisor,
            "key": self.key,
            "socket": self.path,
            "started_at": self.started,
            "served": self.shared.served(),
            "workers": self.shared.workers,
            "idle_exit_s": self.idle,
        }

    def bind(self) -> None:
        """Listen on a socket made under a temporary name, then renamed over the path: a
        stale socket of a killed service is replaced in one step."""
        made = f"{self.path}.{os.getpid()}"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(made)
        listener.bind(made)
        os.chmod(made, 0o600)
        listener.listen(64)
        os.replace(made, self.path)
        self.inode = os.stat(self.path).st_ino
        listener.settimeout(TICK_SECONDS)
        self.listener = listener

    def ours(self) -> bool:
        """The socket at the path is still the one this service bound."""
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def still_wanted(self) -> bool:
        if self.shared.stopping() or time.monotonic() - self.shared.last() > self.idle:
            return False
        gone = self.had_config and not os.path.isdir(self.config_dir)
        return not gone and self.ours()

    def supervise(self, lock: int) -> None:
        """Keep a worker in every slot until the service is no longer wanted, then let the
        workers finish what they are answering."""
        for slot in range(self.shared.workers):
            self.spawn(slot, lock)
        while self.still_wanted():
            time.sleep(TICK_SECONDS)
            for slot in self.reap():
                self.spawn(slot, lock)
        self.shared.stop()
        deadline = time.monotonic() + FINISH_SECONDS
        while self.workers and time.monotonic() < deadline:
            time.sleep(0.05)
            self.reap()
        for pid in self.workers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)

    def reap(self) -> list[int]:
        """The slots of workers that have ended."""
        freed = []
        for pid in list(self.workers):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            freed.append(self.workers.pop(pid))
        return freed

    def spawn(self, slot: int, lock: int) -> None:
        try:
            pid = os.fork()
        except OSError:
            return
        if pid:
            self.workers[pid] = slot
            return
        code = 1
        try:  # the worker: the lock stays the supervisor's alone, so that its death frees it
            os.close(lock)
            self.work(slot)
            code = 0
        finally:
            os._exit(code)

    def work(self, slot: int) -> None:
        assert self.listener is not None
        while not self.shared.stopping() and os.getppid() == self.supervisor:
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                if not self.ours():
                    return
                continue
            with conn:
                carry_on = self.handle(conn, slot)
            self.shared.touch()
            if not carry_on:
                self.shared.stop()

    def leave(self) -> None:
        """Take the socket away (when it is still ours) before the process ends."""
        if self.ours():
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def handle(self, conn: socket.socket, slot: int) -> bool:
        """Answer one request; False when this service must stop (a caller of another key)."""
        conn.settimeout(READ_SECONDS)
        try:
            if peer_uid(conn) != os.getuid():
                return True
            request = read_request(conn)
        except (OSError, ValueError):
            return True
        if not isinstance(request, dict):
            return True
        if request.get("key") != self.key:
            reply(conn, {"key": self.key, "refused": "version"})
            return False
        if request.get("kind") == "ping":
            reply(conn, {"key": self.key, "status": self.status()})
            return True
        answer = run_as_caller(request)
        self.shared.count(slot)
        reply(conn, {"key": self.key, "answer": answer})
        return True


def peer_uid(conn: socket.socket) -> int:
    """The user of the process at the other end (the folder is 700; this makes sure)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def read_request(conn: socket.socket) -> object:
    chunks = []
    while chunk := conn.recv(1 << 16):
        chunks.append(chunk)
    return jsonio.loads(b"".join(chunks).decode("utf-8", "surrogatepass"))


def reply(conn: socket.socket, document: dict) -> None:
    # A caller that gave up waiting runs the hook itself, idempotently.
    with contextlib.suppress(OSError):
        conn.sendall(jsonio.dumps(document).encode("utf-8", "surrogatepass"))


def run_as_caller(request: dict) -> object:
    """One hook, status line or command, run with the caller's environment, working folder
    and program (put back afterwards); its answer: a hook's or the status line's text (a
    handler's failure is logged to the caller's hooks.log and answered as the agent
    expects, as in the hook process), a command's [exit code, stdout, stderr]."""
    import sys

    from vybe.cli import hook_run
    from vybe.integrations.hooks import statusline

    saved, saved_argv = dict(os.environ), sys.argv
    sys.argv = [str(request.get("program") or "")]
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in dict(request.get("env") or {}).items()})
    try:
        os.chdir(str(request.get("cwd") or "/"))
    except OSError:
        os.chdir("/")
    try:
        if request.get("kind") == "cli":
            return run_command([str(word) for word in request.get("argv") or ()])
        raw = str(request.get("raw") or "").encode("utf-8", "surrogatepass")
        if request.get("kind") == "statusline":
            return statusline.line(raw)
        target = str(request.get("target") or "claude")
        invocation = request.get("invocation")
        return hook_run.answer_for(target, raw, invocation=str(invocation or "") or None)
    finally:
        sys.argv = saved_argv
        os.environ.clear()
        os.environ.update(saved)
        os.chdir("/")


def run_command(argv: list[str]) -> list:
    """A command line (vybe.cli.remote) as its process would run it, with nothing on stdin
    and its stderr kept for the caller: [exit code, stdout, stderr]."""
    import io
    import sys

    from vybe.cli.main import run

    saved = sys.stdin, sys.stderr
    sys.stdin, sys.stderr = io.StringIO(""), io.StringIO()
    try:
        code, text = run(argv)
        return [code, text, sys.stderr.getvalue()]
    finally:
        sys.stdin, sys.stderr = saved


def take_lock(path: str, key: str) -> int | None:
    """The service's lock file, held for its life; None when another service of this key
    holds it. One of another key is asked (and so told to go), then waited for a moment."""
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + TAKEOVER_SECONDS
    asked = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())  # for a person (and a test) to find it
            return fd
        except BlockingIOError:
            pass
        if not asked:
            asked = True
            there = service_link.ask({"kind": "ping"}, timeout=1.0)
            if there is None or there.get("key") == key:
                break  # a twin, or one busy with a request: it serves
        if time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    os.close(fd)
    return None


def idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get(service_link.IDLE_VARIABLE) or ""))
    except ValueError:
        return service_link.IDLE_SECONDS


def worker_count() -> int:
    """``VYBE_SERVICE_WORKERS`` (1 to 32), else 4: requests answered at once."""
    try:
        return min(WORKERS_MAX, max(1, int(os.environ.get(WORKERS_VARIABLE) or "")))
    except ValueError:
        return WORKERS


def warm_up() -> None:
    """Load what every request needs before the first one arrives (before the workers
    fork: they start warm; nothing here connects to a server)."""
    import vybe.cli.main
    import vybe.store.postgres  # noqa: F401
    from vybe.cli import hook_run  # noqa: F401
    from vybe.integrations.hooks import claude_code, codex, statusline, unrecorded  # noqa: F401
    from vybe.store import keep_server_stores

    keep_server_stores()


def main() -> None:
    """The service's process (started by service_link.start)."""
    os.chdir("/")
    path = service_link.socket_path()
    if path is None:
        return
    key = service_link.key()
    lock = take_lock(path, key)
    if lock is None:
        return
    service = Service(key, path, idle_seconds(), worker_count())
    try:
        warm_up()
        service.bind()
        service.supervise(lock)
    finally:
        service.leave()
        os.close(lock)
