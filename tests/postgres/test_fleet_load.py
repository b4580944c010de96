"""The fleet, for real: two hosts against one server, 16 agents each, for VYBE_FLEET_SECONDS
(20 by default; `make test-fleet` runs 300 and prints the figures), the server restarted as
a crash would (immediate shutdown) at a third and at two thirds of the time.

Each host has its own HOME, config folder and temporary folder (so its own local service
and spool) and, where the test runs as root with `ip`, its own network namespace, joined to
the server's by a veth pair with a /30 of its own: every agent process of the host runs in
it and reaches the server at the root side's address, which the host's config.yaml names.
Elsewhere the hosts share the machine's network and the test runs all the same.

Each agent (tests/postgres/fleet_agent.py) types numbered prompts through real hook
processes and runs mutations with request ids, each replayed once later; afterwards every
acknowledged write is in the store exactly once, every prompt recorded once and in order,
every replay the first result, and no task claimed by two agents. Each host connects as a
team's own role (`vybe admin`): its agents claim only their team's tasks, never the other's.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import VYBE
from tests.postgres.database import DATABASE, PgVybe, prepare
from tests.postgres.server import FAST, running
from tests.postgres.test_service import Machine, prompt_events, recorded

SECONDS = float(os.environ.get("VYBE_FLEET_SECONDS", "20"))
HOSTS, AGENTS = 2, 16
# Host n connects as ROLES[n], a member of TEAMS[n].
TEAMS, ROLES = ("team_a", "team_b"), ("team_a_agent", "team_b_agent")
POOL = 40  # ready tasks for the agents' claim --next, beside those they create
AGENT = Path(__file__).with_name("fleet_agent.py")
IP = shutil.which("ip")
NAMESPACES = os.geteuid() == 0 and IP is not None
OUTAGE = "DatabaseUnavailable:"  # what a hook may log while the server restarts
STARTUP_S, SETTLE_S = 10, 5  # the steady state's latencies leave out the start and outages


class Link:
    """A host's network namespace and its veth pair to the root namespace: the root side
    10.213.N.1/30 (where the server listens), the host's side 10.213.N.2/30."""

    def __init__(self, n: int) -> None:
        tag = f"{os.getpid() % 100000}h{n}"
        self.namespace, self.root_side, self.host_side = f"vybe{tag}", f"vr{tag}", f"vn{tag}"
        self.server_address, self.host_address = f"10.213.{n}.1", f"10.213.{n}.2"
        self.network = f"10.213.{n}.0/30"

    def up(self) -> None:
        ns = ["-n", self.namespace]
        for argv in (
            ["netns", "add", self.namespace],
            ["link", "add", self.root_side, "type", "veth", "peer", "name", self.host_side],
            ["link", "set", self.host_side, "netns", self.namespace],
            ["addr", "add", f"{self.server_address}/30", "dev", self.root_side],
            ["link", "set", self.root_side, "up"],
            [*ns, "addr", "add", f"{self.host_address}/30", "dev", self.host_side],
            [*ns, "link", "set", self.host_side, "up"],
            [*ns, "link", "set", "lo", "up"],
        ):
            subprocess.run([IP, *argv], check=True, capture_output=True)

    def down(self) -> None:
        for argv in (["netns", "del", self.namespace], ["link", "del", self.root_side]):
            subprocess.run([IP, *argv], check=False, capture_output=True)

    def inside(self) -> list[str]:
        """The prefix that runs a command in the host's namespace."""
        return [IP, "netns", "exec", self.namespace]


@contextlib.contextmanager
def links() -> Iterator[list[Link]]:
    """The hosts' namespaces where we may make them (none elsewhere), always torn down."""
    made = [Link(n) for n in range(HOSTS)] if NAMESPACES else []
    try:
        for link in made:
            link.up()
        yield made
    finally:
        for link in made:
            link.down()


@pytest.fixture
def fleet_server(tmp_path: Path) -> Iterator[tuple[Any, list[Link], PgVybe]]:
    """A server of the fleet's own, listening on 127.0.0.1 and the veth root sides, with
    the migrated database, and the test's own ``vybe`` on it."""
    with links() as made:
        addresses = ",".join(["127.0.0.1", *(link.server_address for link in made)])
        settings = {**FAST, "listen_addresses": addresses}
        with running(settings, trusted=[link.network for link in made]) as server:
            prepare(server)
            vybe = PgVybe(tmp_path, server.url(DATABASE))
            try:
                yield server, made, vybe
            finally:
                vybe.close()


def host(vybe: PgVybe, server: Any, n: int, link: Link | None) -> tuple[Machine, list[str]]:
    """Host ``n``: a machine of its own whose config.yaml names the server at the address it
    reaches it by; and the prefix its processes run under."""
    machine = Machine(vybe)
    home = vybe.home / f"host{n}"
    config = home / "config"
    config.mkdir(parents=True, mode=0o700)
    address = link.server_address if link else "127.0.0.1"
    url = f"postgresql://{ROLES[n]}@{address}:{server.port}/{DATABASE}"
    (config / "config.yaml").write_text(f"default_agent: default\ndb_url: {url}\n")
    (config / "config.yaml").chmod(0o600)
    machine.env.pop("VYBE_DB_URL", None)
    machine.env.update(HOME=str(home), VYBE_CONFIG_DIR=str(config))
    return machine, link.inside() if link else []


def agent(machine: Machine, prefix: list[str], name: str, until: float) -> subprocess.Popen:
    brief = {
        "agent": name,
        "vybe": VYBE,
        "cwd": machine.env["HOME"],
        "until": until,
        "seed": name,
        "out": os.path.join(machine.tmp, f"{name}.json"),
    }
    argv = [*prefix, sys.executable, str(AGENT), json.dumps(brief)]
    return subprocess.Popen(argv, env=machine.env, cwd=machine.env["HOME"])


def closing_prompt(machine: Machine, prefix: list[str], session: str) -> None:
    """One more prompt a host, which adds what the outages kept in its spool."""
    payload = {"hook_event_name": "UserPromptSubmit", "prompt": "last", "session_id": session}
    done = subprocess.run(
        [*prefix, VYBE, "hook", "run", "claude"],
        input=json.dumps(payload | {"cwd": machine.env["HOME"]}).encode(),
        env=machine.env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done


def restarts(server: Any, started: float, outages: list[tuple[float, float]]) -> threading.Thread:
    """Restart the server immediately at a third and at two thirds of the time; each
    outage's start and end added to ``outages``."""

    def restarter() -> None:
        for third in (1, 2):
            time.sleep(max(0.0, started + SECONDS * third / 3 - time.time()))
            down = time.time()
            server.restart_immediately()
            outages.append((down, time.time()))

    thread = threading.Thread(target=restarter)
    thread.start()
    return thread


def run_fleet(
    vybe: PgVybe, server: Any, made: list[Link], outages: list[tuple[float, float]]
) -> tuple[list[dict], list[str]]:
    hosts = [host(vybe, server, n, made[n] if made else None) for n in range(HOSTS)]
    for machine, _ in hosts:
        read_settings(machine)
    try:
        started = time.time()
        until = started + SECONDS
        names = {(h, a): f"h{h}a{a}" for h in range(HOSTS) for a in range(AGENTS)}
        agents = [agent(*hosts[h], name, until) for (h, _), name in names.items()]
        restarter = restarts(server, started, outages)
        assert [process.wait(timeout=SECONDS + 600) for process in agents] == [0] * len(agents)
        restarter.join()
        for n, (machine, prefix) in enumerate(hosts):
            closing_prompt(machine, prefix, f"closing{n}")
        results = [
            json.loads(Path(hosts[h][0].tmp, f"{name}.json").read_text())
            for (h, _), name in names.items()
        ]
        logs = logged(hosts)
    finally:
        for machine, _ in hosts:
            machine.stop()
    return results, logs


def read_settings(machine: Machine) -> None:
    """Parse the host's config.yaml into its cache once, before its agents race to."""
    from vybe import config

    saved = os.environ.get("VYBE_CONFIG_DIR")
    os.environ["VYBE_CONFIG_DIR"] = machine.env["VYBE_CONFIG_DIR"]
    try:
        config.read_settings(os.path.join(machine.env["VYBE_CONFIG_DIR"], "config.yaml"))
    finally:
        if saved is None:
            del os.environ["VYBE_CONFIG_DIR"]
        else:
            os.environ["VYBE_CONFIG_DIR"] = saved


def logged(hosts: list[tuple[Machine, list[str]]]) -> list[str]:
    """What the hosts' hooks logged as failures (hooks.log) beyond the server being away
    (a SessionStart brief, say, while it restarted), and any other log with a Traceback."""
    found = []
    for machine, _ in hosts:
        for path in Path(machine.env["VYBE_CONFIG_DIR"]).rglob("*.log*"):
            text = path.read_text(errors="replace")
            if path.name.startswith("hooks.log"):
                entries = [json.loads(line) for line in text.splitlines() if line.strip()]
                found += [e for e in entries if not e["error"].startswith(OUTAGE)]
            elif "Traceback" in text:
                found.append(text)
    return found


def acknowledged_events(results: list[dict]) -> dict[str, list[int]]:
    """Each agent's event ids, as its acknowledged mutations were answered."""
    return {
        r["agent"]: [
            f["envelope"]["data"]["event_id"]
            for f in r["firsts"].values()
            if f["envelope"]["data"].get("event_id") is not None
        ]
        for r in results
    }


def claimed(results: list[dict]) -> list[str]:
    return [
        f["envelope"]["data"]["task"]["id"]
        for r in results
        for f in r["firsts"].values()
        if f["kind"] == "claim" and f["envelope"]["data"]["task"]
    ]


def percentiles(latencies: list[float]) -> str:
    ordered = sorted(latencies) or [0.0]
    p50, p99 = ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.99)]
    return f"{len(ordered)} hooks, p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms"


def figures(results: list[dict], started: float, outages: list[tuple[float, float]]) -> str:
    """The hooks' latencies, all of them and those of the steady state (started after the
    fleet's first STARTUP_S seconds and not within SETTLE_S of an outage); the mutations."""
    hooks = [tuple(hook) for r in results for hook in r["latencies"]]
    calm = [
        seconds
        for at, seconds in hooks
        if at > started + STARTUP_S
        and not any(down - SETTLE_S < at < up + SETTLE_S for down, up in outages)
    ]
    mutations = sum(len(r["firsts"]) for r in results)
    retries = sum(r["retries"] for r in results)
    down = sum(up - down for down, up in outages)
    return (
        f"fleet {SECONDS:.0f} s, {HOSTS}x{AGENTS} agents"
        f" ({'network namespaces' if NAMESPACES else 'one network'}):"
        f" {percentiles([seconds for _, seconds in hooks])}"
        f" (steady state: {percentiles(calm)});"
        f" {mutations} mutations acknowledged, {retries} retries;"
        f" server down {down:.1f} s in {len(outages)} restarts"
    )


@pytest.mark.fleet
def test_two_hosts_of_sixteen_agents_keep_every_write_once_through_two_server_crashes(
    fleet_server,
):
    server, made, vybe = fleet_server
    pool = set()
    for team, role in zip(TEAMS, ROLES, strict=True):
        vybe.ok("admin", "team", "create", team)
        vybe.ok("admin", "grant", role, "--team", team)
        vybe.env["VYBE_TEAM"] = team
        pool |= {vybe.task(f"pool {team} {n}") for n in range(POOL // 2)}
    vybe.env.pop("VYBE_TEAM")
    started, outages = time.time(), []
    results, logs = run_fleet(vybe, server, made, outages)
    print(figures(results, started, outages))
    assert len(outages) == 2

    assert [r["failures"] for r in results] == [[]] * len(results)
    assert not [t for r in results for t in r["tracebacks"]]
    assert logs == []

    # Every acknowledged write once: each agent's events are exactly those it was answered.
    rows = vybe.sql("SELECT agent_name, id FROM events")
    stored: dict[str, list[int]] = {}
    for name, event_id in rows:
        stored.setdefault(name, []).append(event_id)
    for name, ids in acknowledged_events(results).items():
        assert sorted(stored.get(name, [])) == sorted(ids), name
    titles = Counter(t for (t,) in vybe.sql("SELECT title FROM tasks"))
    created = [f["argv"][3] for r in results for f in r["firsts"].values() if f["kind"] == "create"]
    assert all(titles[title] == 1 for title in created)
    keys = Counter(k for (k,) in vybe.sql("SELECT key FROM memory"))
    remembered = [
        f["argv"][3] for r in results for f in r["firsts"].values() if f["kind"] == "memory"
    ]
    assert all(keys[key] == 1 for key in remembered)

    # Every replay the first result.
    for r in results:
        assert r["replays"].keys() == r["firsts"].keys(), r["agent"]
        for rid, first in r["firsts"].items():
            assert r["replays"][rid]["envelope"] == first["envelope"], rid

    # No task claimed by two agents, in the answers or in the log.
    taken = claimed(results)
    assert len(taken) == len(set(taken))
    claims = Counter(
        t for (t,) in vybe.sql("SELECT task_id FROM events WHERE kind = 'task_claimed'")
    )
    assert all(n == 1 for n in claims.values()), claims
    assert taken and set(taken) & pool  # the pool was drawn on
    # Each claim by a host's agent of its own team's task, and recorded in that team.
    crossed = [
        (name, task_team, event_team)
        for name, task_team, event_team in vybe.sql(
            "SELECT e.agent_name, t.team, e.team FROM events e JOIN tasks t ON t.id = e.task_id"
            " WHERE e.kind = 'task_claimed'"
        )
        if not task_team == event_team == TEAMS[int(name[1])]
    ]
    assert crossed == []
    assert {t for (t,) in vybe.sql("SELECT DISTINCT team FROM events")} == set(TEAMS)

    # Every prompt once, each session's in order.
    for r in results:
        assert recorded(vybe, r["agent"]) == [f"{r['agent']} {n}" for n in range(r["prompts"])]
    expected = [f"{r['agent']} {n}" for r in results for n in range(r["prompts"])]
    assert sorted(prompt_events(vybe)) == sorted([*expected, "last", "last"])
