"""One agent of the fleet under load (tests/postgres/test_fleet_load.py), in a process of its
own: inside its host's network namespace when the host has one, so every `vybe` it starts
(and the local service its first hook starts) reaches the server over the host's veth link.

Until its time is up it types numbered prompts through real `vybe hook run claude`
processes (now and then a Stop or a SessionStart), and runs mutations with request ids,
each replayed once later under the same id. A mutation that failed because the server was
away is run again under its id until it is acknowledged (exit 0 and a success envelope):
only what was acknowledged is written, with its replay, to the JSON file it was given.

    python fleet_agent.py '{"agent": ..., "until": ..., "seed": ..., "vybe": ..., "out": ...}'
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any

# What a command answers while the server is away (restarting): run again, same request id.
OUTAGE = {"DB_UNAVAILABLE", "DB_LOCKED"}
# How long after its time is up an agent goes on retrying one command before it gives up.
GRACE_S = 120
LEASE = "1h"  # longer than any run: a claim never lapses into another agent's


class Agent:
    def __init__(self, brief: dict[str, Any]) -> None:
        self.name: str = brief["agent"]
        self.vybe: str = brief["vybe"]
        self.cwd: str = brief["cwd"]
        self.until: float = brief["until"]
        self.random = random.Random(brief["seed"])
        self.prompts = 0
        self.latencies: list[tuple[float, float]] = []  # (when it started, seconds)
        self.firsts: dict[str, dict[str, Any]] = {}
        self.replays: dict[str, dict[str, Any]] = {}
        self.pending: list[str] = []
        self.mutations = 0
        self.own: list[str] = []  # tasks it created
        self.held: list[str] = []  # tasks it claimed and has not finished
        self.retries = 0
        self.failures: list[str] = []
        self.tracebacks: list[str] = []

    def look(self, stderr: str) -> None:
        if "Traceback" in stderr:
            self.tracebacks.append(stderr[-2000:])

    def hook(self, payload: dict[str, Any]) -> None:
        at, started = time.time(), time.perf_counter()
        done = subprocess.run(
            [self.vybe, "hook", "run", "claude"],
            input=json.dumps({"session_id": self.name, "cwd": self.cwd, **payload}),
            capture_output=True,
            text=True,
            timeout=GRACE_S,
        )
        self.latencies.append((at, time.perf_counter() - started))
        self.look(done.stderr)
        if done.returncode != 0:
            self.failures.append(f"hook {payload} exited {done.returncode}: {done.stderr}")

    def prompt(self) -> None:
        self.hook({"hook_event_name": "UserPromptSubmit", "prompt": f"{self.name} {self.prompts}"})
        self.prompts += 1

    def acknowledged(self, rid: str, argv: list[str]) -> dict[str, Any] | None:
        """The command's envelope once it succeeded, run again under ``rid`` while the
        server is away; None (and a failure noted) for any other answer."""
        while True:
            done = subprocess.run(
                [self.vybe, *argv, "--agent", self.name, "--request-id", rid],
                capture_output=True,
                text=True,
                timeout=GRACE_S,
            )
            self.look(done.stderr)
            try:
                envelope = json.loads(done.stdout)
            except ValueError:
                envelope = {}
            if done.returncode == 0 and envelope.get("success"):
                return envelope
            if envelope.get("error_code") not in OUTAGE or time.time() > self.until + GRACE_S:
                self.failures.append(f"{rid} {argv}: {done.returncode} {done.stdout}")
                return None
            self.retries += 1
            time.sleep(0.2)

    def mutate(self, kind: str, *argv: str) -> dict[str, Any] | None:
        self.mutations += 1
        rid = f"{self.name}-{self.mutations}"
        envelope = self.acknowledged(rid, list(argv))
        if envelope is not None:
            self.firsts[rid] = {"kind": kind, "argv": list(argv), "envelope": envelope}
            self.pending.append(rid)
        return envelope

    def replay(self) -> None:
        rid = self.pending.pop(self.random.randrange(len(self.pending)))
        first = self.firsts[rid]
        envelope = self.acknowledged(rid, first["argv"])
        self.replays[rid] = {"kind": first["kind"], "envelope": envelope}

    def create(self) -> None:
        title = f"{self.name}'s task {len(self.own)}"
        made = self.mutate("create", "task", "create", "--title", title)
        if made:
            self.own.append(made["data"]["task"]["id"])

    def note(self) -> None:
        if not self.own:
            return self.create()
        task = self.random.choice(self.own)
        self.mutate("note", "note", task, f"{self.name} note {len(self.firsts)}")

    def remember(self) -> None:
        key = f"{self.name}.seen.{len(self.firsts)}"
        self.mutate("memory", "memory", "set", "-k", key, "-v", "yes")

    def claim(self) -> None:
        if self.held:
            return self.finish()
        got = self.mutate("claim", "task", "claim", "--next", "--lease", LEASE)
        if got and got["data"]["task"]:
            self.held.append(got["data"]["task"]["id"])

    def finish(self) -> None:
        if not self.held:
            return self.claim()
        self.mutate("done", "done", self.held.pop())

    def step(self) -> None:
        steps = [
            (self.prompt, 35),
            (lambda: self.hook({"hook_event_name": "Stop"}), 5),
            (lambda: self.hook({"hook_event_name": "SessionStart", "source": "resume"}), 5),
            (self.create, 10),
            (self.note, 10),
            (self.remember, 10),
            (self.claim, 10),
            (self.finish, 5),
            (self.replay if self.pending else self.prompt, 10),
        ]
        chosen = self.random.choices([s for s, _ in steps], [w for _, w in steps])[0]
        chosen()

    def run(self) -> dict[str, Any]:
        while time.time() < self.until:
            self.step()
            time.sleep(self.random.uniform(0.2, 1.0))  # the agent thinks
        while self.pending:
            self.replay()
        return {
            "agent": self.name,
            "prompts": self.prompts,
            "latencies": self.latencies,
            "firsts": self.firsts,
            "replays": self.replays,
            "retries": self.retries,
            "failures": self.failures,
            "tracebacks": self.tracebacks,
        }


if __name__ == "__main__":
    brief = json.loads(sys.argv[1])
    result = Agent(brief).run()
    with open(brief["out"], "w", encoding="utf-8") as out:
        json.dump(result, out)
