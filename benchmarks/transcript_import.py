"""Transcript imports inside hooks: a long session's first import, hook by hook, and an import
that finds nothing new. Goals: each hook well inside its 10 s timeout (the import goes on at
the next one, losing nothing), and a no-op import about as cheap as a hook with no transcript.

Run: .venv/bin/python benchmarks/transcript_import.py [--turns 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import compile_vybe

VYBE = str(Path(sys.executable).with_name("vybe"))
SESSION = "5e55b10e-0000-4000-8000-000000000001"


def transcript(path: Path, turns: int) -> None:
    """A Claude Code transcript of ``turns`` turns (prompt, reply with a Bash call, its result,
    final reply), about 3.7 KB a turn as real ones are."""
    pad = "lorem ipsum dolor sit amet " * 40
    with path.open("w") as out:
        for n in range(turns):
            call = f"toolu_{n:06d}"
            lines = [
                {"type": "user", "message": {"role": "user", "content": f"step {n}: {pad}"}},
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_a{n}",
                        "content": [
                            {"type": "text", "text": f"running {n} {pad}"},
                            {
                                "type": "tool_use",
                                "id": call,
                                "name": "Bash",
                                "input": {"command": "ls"},
                            },
                        ],
                    },
                },
                {
                    "type": "user",
                    "message": {
                        "content": [
                            {"type": "tool_result", "tool_use_id": call, "content": pad * 2}
                        ]
                    },
                },
                {
                    "type": "assistant",
                    "message": {
                        "id": f"msg_b{n}",
                        "content": [{"type": "text", "text": f"done {n}"}],
                    },
                },
            ]
            for line in lines:
                out.write(json.dumps({"sessionId": SESSION, **line}) + "\n")


def hook(env: dict[str, str], event: str, path: Path, cwd: str) -> float:
    payload = {
        "session_id": SESSION,
        "hook_event_name": event,
        "transcript_path": str(path),
        "cwd": cwd,
        "trigger": "auto",
    }
    started = time.perf_counter()
    subprocess.run(
        [VYBE, "hook", "run", "claude"], input=json.dumps(payload).encode(), env=env, check=True
    )
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    compile_vybe()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {**os.environ, "VYBE_DB_PATH": str(root / "vybe.db"), "HOME": tmp}
        env["VYBE_CONFIG_DIR"] = str(root / "config")
        path = root / "t.jsonl"
        transcript(path, args.turns)
        size = path.stat().st_size / 1e6
        first = []
        while True:
            first.append(hook(env, "PreCompact", path, tmp))
            conn = sqlite3.connect(root / "vybe.db")
            (rows,) = conn.execute("SELECT COUNT(*) FROM messages").fetchone()
            conn.close()
            if rows >= args.turns * 4 or len(first) > 20:
                break
        print(
            f"first import of {args.turns} turns ({size:.1f} MB): {len(first)} hooks,"
            f" each {min(first):.0f}-{max(first):.0f} ms, {rows} rows"
        )
        noop = [hook(env, "PreCompact", path, tmp) for _ in range(args.runs)]
        missing = root / "none.jsonl"
        bare = [hook(env, "PreCompact", missing, tmp) for _ in range(args.runs)]
        print(
            f"an import that finds nothing new: median {statistics.median(noop):.0f} ms;"
            f" the same hook with no transcript: {statistics.median(bare):.0f} ms"
        )


if __name__ == "__main__":
    main()
