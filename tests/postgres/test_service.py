"""The local service (vybe.cli.service) that runs a server store's hooks on a warm
connection: real hook processes, a real service process, a real server; the service killed
with SIGKILL at random moments, replaced by another vybe's, left idle, switched off."""

from __future__ import annotations

import contextlib
import glob
import json
import os
import random
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_startup_imports import HEAVY, HOOK_ONLY
from tests.conftest import VYBE
from vybe.cli import service
from vybe.integrations.hooks import service_link


class Machine:
    """One user's machine: the test's environment with a socket folder of its own (a short
    TMPDIR: a Unix socket's path is at most 107 bytes), and its service found by its pid."""

    def __init__(self, vybe: Any) -> None:
        self.vybe = vybe
        self.tmp = tempfile.mkdtemp(prefix="vs")
        self.env = {**vybe.env, "TMPDIR": self.tmp, "VYBE_SERVICE_IDLE_S": "30"}
        self.env.pop("XDG_RUNTIME_DIR", None)
        self.folder = os.path.join(self.tmp, f"vybe-{os.getuid()}")

    def prompt(self, text: str, session: str = "s") -> subprocess.CompletedProcess:
        payload = {"hook_event_name": "UserPromptSubmit", "prompt": text, "session_id": session}
        return self.hook(payload | {"cwd": str(self.vybe.home)})

    def hook(self, payload: dict) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [VYBE, "hook", "run", "claude"],
            input=json.dumps(payload).encode(),
            env=self.env,
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0 and b"Traceback" not in done.stderr, done
        return done

    def ask(self, request: dict) -> dict | None:
        """service_link's reply, asked with this machine's environment."""
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(self.env)
        try:
            return service_link.ask(request, timeout=5)
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def ping(self) -> dict | None:
        reply = self.ask({"kind": "ping"})
        return reply["status"] if reply and "status" in reply else None

    def service(self, timeout: float = 30) -> dict:
        """The running service's status, once it answers."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.ping()
            if status is not None:
                return status
            time.sleep(0.05)
        raise AssertionError("no service answered")

    def pid(self) -> int | None:
        for lock in glob.glob(os.path.join(self.folder, "*.lock")):
            text = Path(lock).read_text().strip()
            if text.isdigit():
                return int(text)
        return None

    def workers(self) -> list[int]:
        """The pids of the service's workers (the children of the process holding its lock)."""
        pid = self.pid()
        try:
            return [int(w) for w in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except (OSError, ValueError):
            return []

    def sockets(self) -> list[str]:
        return glob.glob(os.path.join(self.folder, "*.sock"))

    def stop(self) -> None:
        pid = self.pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.tmp, ignore_errors=True)


@pytest.fixture
def machine(vybe: Any) -> Iterator[Machine]:
    one = Machine(vybe)
    yield one
    one.stop()


def recorded(vybe: Any, session: str = "s") -> list[str]:
    rows = vybe.sql(
        "SELECT content_text FROM messages WHERE session_id = ? AND type = 'user'"
        " ORDER BY context_seq",
        (f"claude:{session}",),
    )
    return [text for (text,) in rows]


def prompt_events(vybe: Any) -> list[str]:
    rows = vybe.sql("SELECT message FROM events WHERE kind = 'user_prompt' ORDER BY id")
    return [message for (message,) in rows]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
            return False  # ended, not yet reaped (by whoever adopted it)
    except (ProcessLookupError, FileNotFoundError):
        return False
    with contextlib.suppress(ChildProcessError):  # a child of ours: reaped once it ended
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    return True


@contextlib.contextmanager
def killing(machine: Machine) -> Iterator[list[int]]:
    """SIGKILL a process of the machine's service at random moments (every 20-300 ms) while
    the block runs: its supervisor or one of its workers; the pids killed."""
    stop, kills = threading.Event(), []

    def killer() -> None:
        while not stop.is_set():
            time.sleep(random.uniform(0.02, 0.3))
            pid = machine.pid()
            if pid is None or not alive(pid):
                continue
            pid = random.choice([pid, *machine.workers()])
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                kills.append(pid)

    hunter = threading.Thread(target=killer)
    hunter.start()
    try:
        yield kills
    finally:
        stop.set()
        hunter.join()


def test_the_first_hook_starts_one_service_that_answers_every_later_one(vybe, machine):
    machine.prompt("first")  # runs itself, and starts the service
    first = machine.service()
    for n in range(4):
        machine.prompt(f"then {n}")
    status = machine.service()
    assert status["pid"] == first["pid"]
    assert status["served"] == first["served"] + 4
    assert recorded(vybe) == ["first", "then 0", "then 1", "then 2", "then 3"]
    assert len(prompt_events(vybe)) == 5


def test_the_commands_a_served_brief_hands_the_agent_start_with_the_callers_vybe(vybe, machine):
    machine.prompt("Port billing to Go")  # runs itself, and starts the service
    served = machine.service()["served"]
    compact = {"hook_event_name": "SessionStart", "source": "compact", "session_id": "s"}
    done = machine.hook(compact | {"cwd": str(vybe.home)})
    assert machine.service()["served"] == served + 1
    told = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"{VYBE} --agent claude search '<words>' --session-id claude:s" in told
    assert "-m vybe" not in told


# A line as the executable runs it, with the modules it loaded written to stderr.
RUN = """
import sys
from vybe.cli.entry import main
sys.argv = ["vybe", *sys.argv[1:]]
main(process_ends=True)
sys.stderr.write("\\nMODULES " + " ".join(sorted(sys.modules)))
"""


# A store's URL is read without a shell's quoting (shlex, with re and enum) or urllib.parse
# (with ipaddress): milliseconds of every hook a service answers.
NOR_ON_A_LINE_THE_SERVICE_ANSWERS = {"re", "enum", "shlex", "urllib.parse"}


@pytest.mark.parametrize("line", [["hook", "run", "claude"], ["statusline"]])
def test_a_line_the_service_answers_imports_no_driver_and_no_store(vybe, machine, line):
    machine.prompt("warm it up")
    machine.service()
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": "a guarded prompt"}
    done = subprocess.run(
        [sys.executable, "-c", RUN, *line],
        input=json.dumps(payload | {"session_id": "s", "cwd": str(vybe.home)}).encode(),
        env=machine.env,
        capture_output=True,
        check=True,
    )
    modules = set(done.stderr.decode().rpartition("MODULES ")[2].split())
    assert modules & (HEAVY | HOOK_ONLY | NOR_ON_A_LINE_THE_SERVICE_ANSWERS) == set()
    assert "sqlite3" not in modules and "vybe.store" not in modules
    if line[0] == "hook":
        assert recorded(vybe)[-1] == "a guarded prompt"
    else:
        assert done.stdout.decode().startswith("vybe · ")


def test_the_status_line_is_read_by_the_service(vybe, machine):
    machine.prompt("one")
    before = machine.service()["served"]
    done = subprocess.run(
        [VYBE, "statusline"], input=b'{"session_id": "s"}', env=machine.env, capture_output=True
    )
    assert done.stdout.decode().startswith("vybe · ")
    assert "1 of your messages" in done.stdout.decode()
    assert machine.service()["served"] == before + 1


def test_sigkill_of_the_service_at_random_moments_loses_and_doubles_no_prompt(vybe, machine):
    sessions, per_session = ("a", "b"), 30
    machine.prompt("start", session="a")
    machine.service()

    def typist(session: str) -> None:
        for n in range(per_session):
            machine.prompt(f"{session} {n}", session=session)  # acknowledged: exit 0

    threads = [threading.Thread(target=typist, args=(s,)) for s in sessions]
    with killing(machine) as kills:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(kills) >= 3, kills
    assert recorded(vybe, "a") == ["start", *(f"a {n}" for n in range(per_session))]
    assert recorded(vybe, "b") == [f"b {n}" for n in range(per_session)]
    events = prompt_events(vybe)
    assert sorted(events) == sorted(["start", *(f"{s} {n}" for s in sessions for n in range(30))])


def test_a_caller_that_sends_nothing_holds_up_no_other_agent(vybe, machine):
    machine.prompt("first")
    before = machine.service()["served"]
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(machine.sockets()[0])  # a worker waits READ_SECONDS for its request
    try:
        start = time.monotonic()
        machine.prompt("not kept waiting")
        took = time.monotonic() - start
    finally:
        silent.close()
    assert took < service.READ_SECONDS / 2, took
    assert machine.service()["served"] == before + 1  # answered by another worker
    assert recorded(vybe) == ["first", "not kept waiting"]


def test_a_killed_worker_is_replaced_and_its_service_answers_on(vybe, machine):
    machine.prompt("first")
    status = machine.service()
    assert status["workers"] == service.WORKERS
    workers = machine.workers()
    assert len(workers) == service.WORKERS
    os.kill(workers[0], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while (len(machine.workers()) < service.WORKERS or workers[0] in machine.workers()) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert workers[0] not in machine.workers() and len(machine.workers()) == service.WORKERS
    for n in range(3):
        machine.prompt(f"then {n}")
    assert machine.service()["pid"] == status["pid"]
    assert machine.service()["served"] == status["served"] + 3
    assert recorded(vybe) == ["first", "then 0", "then 1", "then 2"]


def test_a_service_without_a_config_folder_stays_between_prompts(vybe, machine):
    machine.env["VYBE_CONFIG_DIR"] = os.path.join(machine.tmp, "never made")
    machine.prompt("first")
    status = machine.service()
    time.sleep(service.TICK_SECONDS * 2.5)  # the supervisor has looked for the folder
    machine.prompt("a while later")
    assert machine.service()["pid"] == status["pid"]
    assert machine.service()["served"] == status["served"] + 1
    assert recorded(vybe) == ["first", "a while later"]


def test_the_workers_of_a_killed_service_go_and_the_next_hook_starts_another(vybe, machine):
    machine.prompt("first")
    pid = machine.service()["pid"]
    workers = machine.workers()
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers)
    machine.prompt("after it died")  # nobody answers: runs itself, and starts another
    assert machine.service()["pid"] != pid
    assert recorded(vybe) == ["first", "after it died"]


def test_a_hook_run_twice_under_one_invocation_records_its_prompt_once(vybe, machine):
    from tests.conftest import in_process
    from vybe.cli import hook_run

    raw = json.dumps(
        {"hook_event_name": "UserPromptSubmit", "prompt": "only once", "session_id": "s"}
    ).encode()
    with in_process(machine.env):
        for _ in range(2):  # the service's run, killed after its commit; then the hook's own
            hook_run.answer_for("claude", raw, invocation="12345_abcdef")
        hook_run.answer_for("claude", raw, invocation="12345_other")  # typed again: kept
    assert recorded(vybe) == ["only once", "only once"]
    assert prompt_events(vybe) == ["only once", "only once"]


def test_a_compaction_run_twice_under_one_invocation_keeps_one_receipt(vybe, machine):
    from tests.conftest import in_process
    from vybe.cli import hook_run

    def twice(payload: dict, invocation: str) -> None:
        raw = json.dumps({"session_id": "s", **payload}).encode()
        for _ in range(2):  # the service's run, killed after its commit; then the hook's own
            hook_run.answer_for("claude", raw, invocation=invocation)

    with in_process(machine.env):
        twice({"hook_event_name": "UserPromptSubmit", "prompt": "remember this"}, "1_a")
        twice({"hook_event_name": "PreCompact", "trigger": "manual"}, "2_b")
        twice({"hook_event_name": "SessionStart", "source": "compact"}, "3_c")
    receipts = vybe.sql("SELECT trigger, completed FROM compaction_receipts")
    assert [tuple(r) for r in receipts] == [("manual", 1)]


# A service of another vybe: the same code under another key, as an older install's would be.
OLD_SERVICE = """
from vybe.integrations.hooks import service_link
service_link.key = lambda: "0.0.1/0/an older vybe"
from vybe.cli.service import main
main()
"""


def test_a_service_of_another_vybe_is_never_used_and_is_replaced(vybe, machine):
    old = subprocess.Popen([sys.executable, "-c", OLD_SERVICE], env=machine.env)
    deadline = time.monotonic() + 30
    while not machine.sockets() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert machine.pid() == old.pid
    machine.prompt("typed while the old one ran")  # refused by it: run by the hook itself
    assert old.wait(timeout=10) == 0  # it went on being told of a newer vybe
    status = machine.service()
    assert status["pid"] != old.pid and status["key"] == service_link.key()
    assert recorded(vybe) == ["typed while the old one ran"]


def test_an_idle_service_exits_and_takes_its_socket_away(vybe, machine):
    machine.env["VYBE_SERVICE_IDLE_S"] = "3"  # after its first hook, the test's ping
    machine.prompt("one")
    pid = machine.service()["pid"]
    deadline = time.monotonic() + 15
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid)
    assert machine.sockets() == []
    machine.prompt("after it left")  # runs itself, and starts another
    assert machine.service()["pid"] != pid
    assert recorded(vybe) == ["one", "after it left"]


def test_switched_off_no_service_runs_and_every_hook_connects_itself(vybe, machine):
    machine.env["VYBE_SERVICE"] = "off"
    machine.prompt("one")
    machine.prompt("two")
    time.sleep(0.5)
    assert machine.sockets() == [] and machine.pid() is None
    assert recorded(vybe) == ["one", "two"]
    doctor = doctor_check(machine)
    assert doctor["state"] == "off" and doctor["ok"]


def test_the_socket_is_the_users_alone_and_a_shared_folder_is_refused(vybe, machine):
    machine.prompt("one")
    machine.service()
    assert stat.S_IMODE(os.stat(machine.folder).st_mode) == 0o700
    assert all(stat.S_IMODE(os.stat(s).st_mode) == 0o600 for s in machine.sockets())
    machine.stop()
    os.makedirs(machine.folder, mode=0o755)
    os.chmod(machine.folder, 0o755)  # whatever the umask
    machine.prompt("two")  # runs itself: no service listens where others may enter
    time.sleep(0.5)
    assert machine.sockets() == []
    assert recorded(vybe) == ["one", "two"]
    doctor = doctor_check(machine)
    assert doctor["state"] == "unavailable" and not doctor["ok"]


def doctor_check(machine: Machine) -> dict:
    done = subprocess.run(
        [VYBE, "doctor"], env=machine.env, capture_output=True, text=True, check=False
    )
    checks = json.loads(done.stdout)["data"]["checks"]
    return next(c for c in checks if c["name"] == "local_service")


def test_doctor_says_whether_the_service_runs(vybe, machine):
    assert doctor_check(machine)["state"] == "not running"
    machine.prompt("one")
    pid = machine.service()["pid"]
    found = doctor_check(machine)
    assert found["state"] == "running" and found["pid"] == pid and found["ok"]


def test_a_fleet_of_two_hosts_keeps_every_prompt_once_in_order_through_server_restarts(
    vybe, pg_server
):
    """Two hosts (their own HOME, config folder, temporary folder: their own service and
    spool), 16 agent sessions each typing prompts through real hook processes, the server
    restarted as a crash would (immediate shutdown) twice meanwhile; then one more prompt a
    host, which adds what the outages kept on disk."""
    hosts = [Machine(vybe) for _ in range(2)]
    for n, host in enumerate(hosts):
        home = vybe.home / f"host{n}"
        (home / "config").mkdir(parents=True)
        shutil.copy(vybe.config_dir / "config.yaml", home / "config" / "config.yaml")
        host.env.update(HOME=str(home), VYBE_CONFIG_DIR=str(home / "config"))
    sessions = {(h, a): f"h{h}a{a}" for h in range(2) for a in range(16)}
    prompts, latencies = 6, []

    def agent(host: int, session: str) -> None:
        for n in range(prompts):
            started = time.perf_counter()
            hosts[host].prompt(f"{session} {n}", session=session)
            latencies.append(time.perf_counter() - started)

    try:
        threads = [threading.Thread(target=agent, args=(h, s)) for (h, _), s in sessions.items()]
        for thread in threads:
            thread.start()
        for _ in range(2):
            time.sleep(3)
            pg_server.restart_immediately()
        for thread in threads:
            thread.join()
        for n, host in enumerate(hosts):
            host.prompt("last", session=f"closing{n}")
    finally:
        for host in hosts:
            host.stop()
    logs = [Path(host.env["VYBE_CONFIG_DIR"]) / "hooks.log" for host in hosts]
    logged = "".join(log.read_text()[-3000:] for log in logs if log.exists())
    for session in sessions.values():
        assert recorded(vybe, session) == [f"{session} {n}" for n in range(prompts)], logged
    expected = [f"{s} {n}" for s in sessions.values() for n in range(prompts)] + ["last"] * 2
    assert sorted(prompt_events(vybe)) == sorted(expected)
    latencies.sort()
    p50, p99 = latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99)]
    print(f"{len(latencies)} hooks: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")


def command(machine: Machine, *argv: str) -> tuple[int, dict, str]:
    done = subprocess.run(
        [VYBE, *argv], env=machine.env, capture_output=True, text=True, timeout=60
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_a_command_on_a_server_store_is_run_by_the_service(vybe, machine):
    machine.prompt("warm it up")
    served = machine.service()["served"]
    code, created, _ = command(machine, "task", "create", "--title", "served", "--agent", "a")
    assert code == 0 and created["success"]
    code, missing, _ = command(machine, "task", "get", "--id", "task_nope", "--agent", "a")
    assert code == 1 and missing["error_code"] == "NOT_FOUND"
    code, brief, _ = command(machine, "resume", "--peek", "--agent", "a")
    assert code == 0 and brief["success"]
    assert machine.service()["served"] == served + 3
    assert command(machine, "schema")[0] == 0  # not a store's command: run by the process
    assert machine.service()["served"] == served + 3
    assert [t for (t,) in vybe.sql("SELECT title FROM tasks")] == ["served"]


def test_a_command_the_service_answers_loads_no_driver_no_parser_no_store(vybe, machine):
    machine.prompt("warm it up")
    machine.service()
    done = subprocess.run(
        [sys.executable, "-c", RUN, "resume", "--peek", "--agent", "a"],
        env=machine.env,
        capture_output=True,
        check=True,
    )
    modules = set(done.stderr.decode().rpartition("MODULES ")[2].split())
    unwanted = {"argparse", "sqlite3", "vybe.store", "vybe.operations", "shlex", "urllib.parse"}
    assert modules & (HEAVY | unwanted) == set()
    assert json.loads(done.stdout)["success"]


def test_sigkill_of_the_service_never_doubles_a_command_without_a_request_id(vybe, machine):
    machine.prompt("warm it up")
    machine.service()
    with killing(machine) as kills:
        for n in range(25):  # each acknowledged: exit 0, with its envelope
            code, created, _ = command(machine, "task", "create", "--title", f"t{n}", "-a", "a")
            assert code == 0 and created["success"]
    assert kills
    titles = [t for (t,) in vybe.sql("SELECT title FROM tasks ORDER BY created_at, id")]
    assert sorted(titles) == sorted(f"t{n}" for n in range(25))


def test_a_command_the_service_ran_into_a_full_stdout_names_the_request_id_to_replay(vybe, machine):
    """The service did the write; the caller's stdout could not take its envelope: one
    line on stderr, exit 74 (docs/cli.md), and the request id made for the line replays
    the first result."""
    machine.prompt("warm it up")
    served = machine.service()["served"]
    env = {k: v for k, v in machine.env.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [VYBE, "task", "create", "--title", "unprinted", "--agent", "a"], env=env,
            stdout=full, stderr=subprocess.PIPE, check=False, timeout=60,
        )  # fmt: skip
    assert machine.service()["served"] == served + 1  # the service ran it
    lines = done.stderr.decode().splitlines()
    assert done.returncode == 74 and len(lines) == 1, lines
    request_id = lines[0].split("--request-id ", 1)[1].split()[0]
    code, replayed, _ = command(machine, "task", "create", "--title", "unprinted", "--agent",
                                "a", "--request-id", request_id)  # fmt: skip
    assert code == 0
    assert [i for (i,) in vybe.sql("SELECT id FROM tasks")] == [replayed["data"]["task"]["id"]]


def test_one_service_serves_each_teams_role_on_a_connection_of_its_own(vybe, machine):
    """Two teams' roles through one user's service, the URL naming no user (libpq's PGUSER
    does, as a service file or .pgpass would): each command runs as its caller's role, so
    each team writes its own rows and reads none of the other's."""
    for team in ("team_a", "team_b"):
        vybe.ok("admin", "team", "create", team)
        vybe.ok("admin", "grant", f"{team}_agent", "--team", team)
    machine.env["VYBE_DB_URL"] = vybe.url.replace("postgresql://postgres@", "postgresql://", 1)
    machine.env["PGUSER"] = "team_a_agent"
    machine.prompt("warm it up")
    served = machine.service()["served"]
    seen = {}
    for _ in range(2):
        for team in ("team_a", "team_b"):
            machine.env["PGUSER"] = f"{team}_agent"
            code, made, _ = command(machine, "task", "create", "--title", team, "--agent", "a")
            assert code == 0, made
            seen[team] = command(machine, "task", "list", "--agent", "a")[1]["data"]["tasks"]
    assert machine.service()["served"] == served + 8
    assert {team: {t["title"] for t in tasks} for team, tasks in seen.items()} == {
        "team_a": {"team_a"},
        "team_b": {"team_b"},
    }
    assert sorted(vybe.sql("SELECT title, team FROM tasks")) == [
        ("team_a", "team_a"),
        ("team_a", "team_a"),
        ("team_b", "team_b"),
        ("team_b", "team_b"),
    ]
