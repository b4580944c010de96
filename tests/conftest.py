"""Shared fixtures: a fresh store per test and a way to run `vybe` as agents do."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

VYBE = str(Path(sys.executable).with_name("vybe"))


# Real Claude Code and Codex transcripts, with their sources and licenses (README.md there).
TRANSCRIPTS = Path(__file__).with_name("fixtures") / "transcripts"


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


class Vybe:
    """Runs the installed `vybe` in a subprocess against one store."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.db_path = home / "vybe.db"
        self.env = {
            **os.environ,
            "VYBE_DB_PATH": str(self.db_path),
            "VYBE_CONFIG_DIR": str(home / "config"),
            "HOME": str(home),
        }
        self.env.pop("VYBE_AGENT", None)
        self.env.pop("VYBE_REQUEST_ID", None)

    def __call__(self, *args: str, stdin: str | None = None, agent: str | None = None) -> Result:
        command = [VYBE, *args] + (["--agent", agent] if agent else [])
        done = subprocess.run(
            command, input=stdin, capture_output=True, text=True, env=self.env, check=False
        )
        lines = done.stdout.strip().splitlines()
        assert len(lines) == 1, f"expected one envelope, got {done.stdout!r} {done.stderr!r}"
        assert "Traceback" not in done.stderr, done.stderr
        return Result(done.returncode, json.loads(lines[0]), done.stderr)

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

    def refused(self, code: str, *args: str, exit_code: int = 1, **kwargs: Any) -> Result:
        """Run a command that must fail with ``code`` and leave the store as it was."""
        if not self.db_path.exists():
            self.ok("init")
        before = self.dump()
        result = self(*args, **kwargs)
        assert result.code == exit_code, result.envelope
        assert result.error_code == code, result.envelope
        assert self.dump() == before
        return result

    def sql(self, query: str, params: tuple = ()) -> list[tuple]:
        """Read (or, to test the triggers, write) the store directly."""
        conn = sqlite3.connect(self.db_path, isolation_level=None)
        try:
            return conn.execute(query, params).fetchall()
        finally:
            conn.close()

    def event_count(self) -> int:
        return self.sql("SELECT COUNT(*) FROM events")[0][0]


@pytest.fixture
def vybe(tmp_path: Path) -> Vybe:
    return Vybe(tmp_path)
