"""Running `vybe hook run <target>` as Claude Code, Codex and Gemini CLI do: the event JSON on
stdin.

In-process by default (the handler the executable calls, with the hook's environment, stdin
and working folder); ``Agent.process`` starts the installed executable as the agents do."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import VYBE, in_process

FIXTURES = Path(__file__).with_name("fixtures")
# The captured payloads come from many sessions; the tests play them as one session per
# agent, the one their transcript fixtures belong to.
SESSIONS = {
    "claude": "6f1c2d3e-0000-4aaa-8bbb-123456789abc",
    "codex": "019b7f94-51b4-7593-922e-ba12b5b73b52",
    "gemini": "46d28e3e-4b32-4dd4-8c11-d17e93833c97",
}


@dataclass
class HookRun:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> dict[str, Any] | None:
        return json.loads(self.stdout) if self.stdout.strip() else None

    @property
    def context(self) -> str:
        output = self.output or {}
        return output.get("hookSpecificOutput", {}).get("additionalContext", "")


def target_of(folder: str) -> str:
    """The agent whose payloads a fixture folder holds: ``claude`` of ``claude`` (the pinned
    version's) and of ``claude@2.1.332`` (a newer version's, from ``make e2e-latest``)."""
    return folder.partition("@")[0]


class Agent:
    """Sends captured events to vybe's hook handler, placeholders filled, one session each.
    ``target`` names the agent or one of its fixture folders (``claude@2.1.332``)."""

    def __init__(self, vybe: Any, project: Path) -> None:
        self.vybe = vybe
        self.project = project
        self.transcript = FIXTURES / "claude" / "transcript.jsonl"

    def event(self, target: str, name: str, **fields: Any) -> dict[str, Any]:
        payload = json.loads((FIXTURES / target / f"{name}.json").read_text())
        payload["session_id"] = SESSIONS[target_of(target)]
        for key, value in payload.items():
            if value == "{cwd}":
                payload[key] = str(self.project)
            elif value == "{transcript}":
                payload[key] = str(self.transcript)
        return {**payload, **fields}

    def raw(self, target: str, stdin: bytes) -> HookRun:
        from vybe.cli.hook_run import run_handler

        argv = ["hook", "run", target]
        with in_process(self.vybe.env, stdin, cwd=self.project, argv=argv) as streams:
            code = run_handler([target])
        return HookRun(code, streams.out, streams.err)

    def process(self, target: str, stdin: bytes) -> HookRun:
        """The installed executable in its own process, for what only a process shows."""
        done = subprocess.run(
            [VYBE, "hook", "run", target],
            input=stdin,
            capture_output=True,
            env=self.vybe.env,
            cwd=self.project,
            check=False,
        )
        return HookRun(done.returncode, done.stdout.decode(), done.stderr.decode())

    def send(self, target: str, name: str, **fields: Any) -> HookRun:
        payload = self.event(target, name, **fields)
        return self.raw(target_of(target), json.dumps(payload).encode())

    def send_process(self, target: str, name: str, **fields: Any) -> HookRun:
        payload = self.event(target, name, **fields)
        return self.process(target_of(target), json.dumps(payload).encode())

    def rows(self, sql: str, *params: Any) -> list[tuple]:
        return self.vybe.sql(sql, params)

    @property
    def log(self) -> str:
        path = self.vybe.home / "config" / "hooks.log"
        return path.read_text() if path.exists() else ""


@pytest.fixture
def agent(vybe, tmp_path) -> Agent:
    project = tmp_path / "proj"
    project.mkdir()
    return Agent(vybe, project)


def type_many(location: str, session: str, texts: list[str]) -> None:
    """The person's messages ``texts`` appended to a session of the store at ``location``
    (SQLite's file or the server's URL) in one transaction, numbered after its newest row:
    a long session in milliseconds, where a hook per message would take seconds."""
    from vybe.store import open_store

    store = open_store(location)
    insert = (
        "INSERT INTO messages (session_id, context_seq, type, source, content_text, tokens,"
        " created_at) VALUES (?, ?, 'user', 'user', ?, 10, '2026-08-01T00:00:00.000000Z')"
    )
    newest = "SELECT COALESCE(MAX(context_seq), 0) FROM messages WHERE session_id = ?"

    def add(conn: Any) -> None:
        first = conn.execute(newest, (session,)).fetchone()[0] + 1
        for n, text in enumerate(texts):
            conn.execute(insert, (session, first + n, text))

    try:
        store.transact(add)
    finally:
        store.close()
