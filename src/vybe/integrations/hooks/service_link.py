"""The hook path's link to the local service (vybe.cli.service), which runs the hooks, the
status line and the store's commands of a PostgreSQL store on a warm connection, so that
their processes never import psycopg (its import alone is most of a hook's time:
docs/architecture.md, the local service).

One service a user and config folder, on a Unix socket in a folder only the user can open
($XDG_RUNTIME_DIR/vybe, else vybe-<uid> in the temporary folder). One request a connection:
a JSON object written whole, the write side shut, one JSON object back. Every request
carries this vybe's ``key`` (version, protocol, install); a service of another key refuses
it and exits, and the caller starts one of its own. Whatever fails (no service, a refusal,
a service killed mid-request), the caller runs it itself: a hook's writes are idempotent
by its invocation id (a command's by its request id), so what the service had already
done is replayed, not doubled.

Standard library only, and of the socket machinery only the C module ``_socket`` (socket.py
loads enum, selectors' cost on every prompt).
"""

from __future__ import annotations

import _socket
import os
import stat
import sys

from vybe import config, jsonio
from vybe.digest import sha256_hex

PROTOCOL = 1
SWITCH = "VYBE_SERVICE"  # "off": every hook connects to the server itself
IDLE_VARIABLE = "VYBE_SERVICE_IDLE_S"
IDLE_SECONDS = 600.0  # a service with nothing to do for this long exits
# How long a hook waits for the service's answer before it runs itself: the service answers
# in milliseconds; a wedged one leaves the hook time to run itself (its own connection and
# a busy wait of at most 2 s, HOOK_BUSY_TIMEOUT_MS) within the 10 s vybe installs hooks with.
ANSWER_SECONDS = 6.0
SERVICE_MAIN = "from vybe.cli.service import main; main()"


def key() -> str:
    """What a service must share with its caller: vybe's version, this protocol, where vybe
    is installed and when (a reinstall writes its files anew)."""
    import vybe

    package = os.path.dirname(vybe.__file__)
    stamp = os.stat(os.path.join(package, "__init__.py")).st_mtime_ns
    return f"{vybe.__version__}/{PROTOCOL}/{package}/{stamp}"


def folder() -> str:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "vybe")
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"vybe-{os.getuid()}")


def private_folder() -> str | None:
    """The socket's folder, made 700 if missing; None when it is not this user's alone (a
    folder another user made, or one others may enter): then there is no service."""
    path = folder()
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        found = os.lstat(path)
    except OSError:
        return None
    mine = stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid()
    return path if mine and not found.st_mode & 0o077 else None


def name() -> str:
    """The service's file names for this config folder (``<name>.sock``, ``<name>.lock``)."""
    return "service-" + sha256_hex(os.path.abspath(config.config_dir()).encode())[:16]


SOCKET_PATH_MAX = 100  # a Unix socket's path is at most 107 bytes on Linux: room for a suffix


def socket_path() -> str | None:
    """The service's socket; None when its folder is not private, or the path too long."""
    where = private_folder()
    if where is None:
        return None
    path = os.path.join(where, name() + ".sock")
    return path if len(os.fsencode(path)) <= SOCKET_PATH_MAX else None


def state() -> dict:
    """What doctor says of the service: off, running (with its status), not running, or
    unable to run here."""
    if not enabled():
        return {"state": "off", "detail": f"{SWITCH}=off: every hook connects to the server"}
    if socket_path() is None:
        where = folder()
        return {
            "state": "unavailable",
            "detail": f"{where} is not private to this user"
            " or its socket path is too long: every hook connects to the server",
        }
    reply = ask({"kind": "ping"}, timeout=2.0)
    if reply is None:
        return {"state": "not running", "detail": "the next hook on this server store starts it"}
    if "status" not in reply:
        return {
            "state": "replaced",
            "detail": "a service of another vybe was running;"
            " it exits, and the next hook starts this vybe's",
        }
    status = reply["status"]
    detail = f"pid {status['pid']}, {status['workers']} workers,"
    detail += f" {status['served']} requests served, on {status['socket']};"
    detail += f" exits after {status['idle_exit_s']:g} s without one"
    return {"state": "running", "detail": detail, **status}


def enabled() -> bool:
    return os.environ.get(SWITCH) != "off"


def ask(request: dict, timeout: float = ANSWER_SECONDS) -> dict | None:
    """The service's reply to ``request`` (``key`` added), or None: no service, or it went
    away before answering."""
    path = socket_path()
    if path is None:
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    chunks = []
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(jsonio.dumps({**request, "key": key()}).encode("utf-8", "surrogatepass"))
        sock.shutdown(_socket.SHUT_WR)
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        sock.close()
    try:
        reply = jsonio.loads(b"".join(chunks).decode("utf-8", "surrogatepass"))
    except ValueError:  # cut short: the service died while answering
        return None
    return reply if isinstance(reply, dict) else None


def answer(kind: str, fields: dict) -> object | None:
    """The service's answer to one hook, status line or command, run with this process's
    environment and folder; None when the caller must run it itself (``start_wanted``,
    once it has answered, starts a service for the next one)."""
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = "/"
    # The program too: the command lines a brief hands the agent start with the caller's vybe.
    program = sys.argv[0] if sys.argv else ""
    request = {"kind": kind, "env": dict(os.environ), "cwd": cwd, "program": program}
    reply = ask({**request, **fields})
    if reply is not None and reply.get("answer") is not None:
        return reply["answer"]
    _wanted.append(True)
    return None


def text_answer(kind: str, fields: dict) -> str | None:
    """``answer`` for a hook or the status line, whose answer is text."""
    found = answer(kind, fields)
    return found if isinstance(found, str) else None


# Set when a hook found no service (or one that failed): one is started once the hook has
# answered, so that its start (mostly imports) does not compete with the hook's own work.
_wanted: list[bool] = []


def start_wanted() -> None:
    if _wanted:
        _wanted.clear()
        start()


def start() -> None:
    """Start a service, detached from this process (a double fork: it is no child of ours to
    reap, has no terminal, and holds none of our descriptors, the agent's pipes least of
    all). One that finds another of its key running exits at once. Never raises."""
    import sys

    try:
        pid = os.fork()
    except OSError:
        return
    if pid == 0:  # the child: a new session, then the service in a grandchild
        try:
            os.setsid()
            if os.fork() == 0:
                nothing = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(nothing, fd)
                os.execv(sys.executable, [sys.executable, "-c", SERVICE_MAIN])
        finally:
            os._exit(0)
    try:  # noqa: SIM105 (contextlib is kept off the hook path)
        os.waitpid(pid, 0)
    except OSError:
        pass
