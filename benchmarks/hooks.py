"""Hook latency: every event Claude Code sends (Stop importing a new turn of the transcript
each run) on a store of 100k events and 10k memories, and `vybe statusline` on the same
store, against a bare `python -c "import sqlite3"` measured in the same run. Goal: at most 2x.

Run: .venv/bin/python benchmarks/hooks.py [--runs 30] [--events 100000] [--memories 10000]
       [--instructions]   (also each command's instruction count under valgrind, if installed)
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import Run, compile_vybe, instructions, interleaved, report_hook_errors

VYBE = str(Path(sys.executable).with_name("vybe"))
NOW = "2026-08-01T10:00:00.000000Z"


def seed(env: dict[str, str], db: Path, events: int, memories: int, project: str) -> None:
    """A migrated store filled with rows directly (seeding through the CLI would take hours)."""
    subprocess.run([VYBE, "init"], env=env, check=True, capture_output=True)
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO events (kind, agent_name, project_id, message, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                (("progress", "user_prompt")[n % 7 == 0], f"a{n % 5}", project, f"event {n}", NOW)
                for n in range(events)
            ),
        )
        conn.executemany(
            "INSERT INTO memory (id, key, value, scope, scope_id, kind, pinned, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    f"memory_{n}",
                    f"key{n}",
                    f"value of memory {n}",
                    "project" if n % 2 else "global",
                    project if n % 2 else "",
                    ("fact", "lesson", "directive")[n % 3],
                    int(n % 97 == 0),
                    NOW,
                    NOW,
                )
                for n in range(memories)
            ),
        )
    conn.close()


class Transcript:
    """A Claude transcript that gains one turn (the prompt, the reply) before each Stop."""

    def __init__(self, path: Path, session: str) -> None:
        self.path, self.session, self.turns = path, session, 0
        path.write_text("")

    def add_turn(self) -> None:
        self.turns += 1
        n, base = self.turns, {"sessionId": self.session, "isSidechain": False}
        user = {**base, "type": "user", "uuid": f"u{n}", "message": {"content": f"step {n}"}}
        content = [{"type": "text", "text": f"done with step {n}"}]
        reply = {"id": f"msg_{n}", "role": "assistant", "content": content}
        lines = [user, {**base, "type": "assistant", "uuid": f"a{n}", "message": reply}]
        with self.path.open("a") as handle:
            handle.write("".join(json.dumps(line) + "\n" for line in lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--instructions", action="store_true")
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        project = str(home / "proj")
        db = home / "vybe.db"
        env = {
            **os.environ,
            "HOME": folder,
            "VYBE_DB_PATH": str(db),
            "VYBE_CONFIG_DIR": str(home / "config"),
        }
        seed(env, db, args.events, args.memories, project)
        common = {"session_id": "bench", "cwd": project, "transcript_path": ""}
        transcript = Transcript(home / "transcript.jsonl", "bench")
        turn = {"transcript_path": str(transcript.path)}
        payloads = {
            "UserPromptSubmit": {"hook_event_name": "UserPromptSubmit", "prompt": "add a test"},
            "SessionStart startup": {"hook_event_name": "SessionStart", "source": "startup"},
            "SessionStart compact": {"hook_event_name": "SessionStart", "source": "compact"},
            "Stop (a new turn)": {"hook_event_name": "Stop", **turn},
            "PreCompact": {"hook_event_name": "PreCompact", "trigger": "auto"},
            "SessionEnd": {"hook_event_name": "SessionEnd", "reason": "other", **turn},
        }
        runs = {"python -c import sqlite3": Run([sys.executable, "-c", "import sqlite3"], env)}
        for name, payload in payloads.items():
            stdin = json.dumps({**common, **payload}).encode()
            before = transcript.add_turn if name.startswith("Stop") else None
            runs[name] = Run([VYBE, "hook", "run", "claude"], env, stdin, before)
        runs["statusline"] = Run([VYBE, "statusline"], env, json.dumps(common).encode())
        figures = interleaved(runs, args.runs)
        base = figures["python -c import sqlite3"]
        print(
            f"store: {args.events} events, {args.memories} memories;"
            f" median of {args.runs} interleaved runs; load average {os.getloadavg()[0]:.1f}"
        )
        for name, ms in figures.items():
            print(f"{name:28} {ms:7.1f} ms  {ms / base:.2f}x")
        counts = instructions(runs) if args.instructions else None
        if counts:
            floor = counts["python -c import sqlite3"]
            print("instructions (callgrind), one run each:")
            for name, count in counts.items():
                print(f"{name:28} {count / 1e6:7.1f} M   {count / floor:.2f}x")
        report_hook_errors(home / "config")


if __name__ == "__main__":
    main()
