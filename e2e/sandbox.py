"""One scenario's world: an isolated HOME, a git project, vybe's store, a fake model server.

The real CLIs come from the npm cache folder (``E2E_CACHE``, default ``.cache/e2e``), vybe
from the repository's virtualenv (``VYBE``, default ``.venv/bin/vybe``), installed into the
agents by ``vybe hook install`` exactly as docs/integrations.md says.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("E2E_CACHE") or REPO / ".cache" / "e2e")
BIN = CACHE / "node_modules" / ".bin"
VYBE = os.environ.get("VYBE") or str(REPO / ".venv" / "bin" / "vybe")
RUNS = CACHE / "runs"
FAKE_KEY = "sk-fake-key-for-e2e"


def path_without_vybe() -> str:
    """PATH as a new user has it: vybe lives in a virtualenv, not on it (the brief's command
    lines must work all the same)."""
    folders = (os.environ.get("PATH") or "/usr/bin:/bin").split(os.pathsep)
    return os.pathsep.join(f for f in folders if not os.path.exists(os.path.join(f, "vybe")))


class Sandbox:
    """Folders and environment of one scenario; every agent run is logged under ``root``."""

    def __init__(self, name: str, server: Any, capture: bool = True) -> None:
        self.name, self.server = name, server
        self.root = RUNS / name
        shutil.rmtree(self.root, ignore_errors=True)
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.captured = self.root / "captured"
        self.db = self.root / "home" / ".local" / "vybe.db"
        for folder in (self.home, self.project, self.db.parent):
            folder.mkdir(parents=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "e2e@example.invalid")
        self.git("config", "user.name", "e2e")
        self.env = {
            "PATH": path_without_vybe(),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
            "VYBE_DB_PATH": str(self.db),
        }
        if capture:
            self.env["VYBE_HOOK_CAPTURE"] = str(self.captured)
        self.runs = 0

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.project, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def run(self, argv: list[str], timeout: float = 120, **kw: Any) -> subprocess.CompletedProcess:
        self.runs += 1
        started = time.monotonic()
        done = subprocess.run(
            argv,
            cwd=kw.pop("cwd", self.project),
            env={**self.env, **kw.pop("env", {})},
            stdin=None if "input" in kw else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            **kw,
        )
        log = self.root / f"run-{self.runs:02d}.log"
        log.write_text(
            f"$ {argv}\n({time.monotonic() - started:.2f} s, exit {done.returncode})\n"
            f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}\n"
        )
        return done

    def vybe(self, *args: str) -> dict[str, Any]:
        """A command the person types in a terminal, as the person (vybe needs a name)."""
        named = args if "--agent" in args else ("--agent", "person", *args)
        done = self.run([VYBE, *named], timeout=60)
        try:
            return json.loads(done.stdout)
        except ValueError:
            return {"success": False, "stdout": done.stdout, "stderr": done.stderr}

    def query(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        if not self.db.exists():
            return []
        conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10)
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def messages(self, session: str) -> list[sqlite3.Row]:
        return self.query(
            "SELECT type, source, content_text, content_json FROM messages"
            " WHERE session_id = ? ORDER BY context_seq",
            session,
        )

    def events(self, kind: str) -> list[sqlite3.Row]:
        return self.query("SELECT * FROM events WHERE kind = ? ORDER BY id", kind)

    def payloads(self) -> list[dict[str, Any]]:
        """The hook payloads the agents sent, in the order they came."""
        if not self.captured.exists():
            return []
        files = sorted(p for p in self.captured.glob("*.json"))
        return [json.loads(p.read_text()) for p in files]

    def hook_times(self) -> list[dict[str, Any]]:
        path = self.captured / "timings.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line]
