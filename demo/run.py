"""The main job, end to end: an agent's session as real `vybe` commands on a fresh store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

VYBE = shutil.which("vybe", path=str(Path(sys.executable).parent)) or "vybe"


def vybe(*args: str, agent: str = "claude", show: bool = True) -> dict:
    """Run one vybe command as an agent would, and print what it sees."""
    command = [VYBE, *args, "--agent", agent]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    envelope = json.loads(done.stdout)
    if show:
        print(f"\n$ vybe {' '.join(args)}   # as {agent}")
        print(json.dumps(envelope, indent=2)[:1200])
    return envelope


def scene_tasks() -> None:
    print("=" * 72 + "\nScene 1: a project, tasks with a dependency, an agent at work\n" + "=" * 72)
    vybe("project", "create", "--name", "billing", "--id", "/srv/billing", show=False)
    migrate = vybe(
        "task",
        "create",
        "--title",
        "Migrate the billing tables",
        "--priority",
        "5",
        "--project-id",
        "/srv/billing",
    )["data"]["task"]["id"]
    deploy = vybe("task", "create", "--title", "Deploy billing v2", "--project-id", "/srv/billing")[
        "data"
    ]["task"]["id"]
    vybe("task", "depend", "--id", deploy, "--on", migrate)
    vybe("task", "begin", "--id", deploy)
    vybe("task", "list", "--ready")
    vybe("task", "begin", "--id", migrate)
    vybe("note", migrate, "copied 3 of 5 tables", "--request-id", "note-1")
    print("\n# The agent crashes and retries the same note: the replay returns the first result.")
    vybe("note", migrate, "copied 3 of 5 tables", "--request-id", "note-1")
    vybe("done", migrate, "--note", "all 5 tables migrated")
    print("\n# The blocker is done: deploy is ready now.")
    vybe("task", "list", "--ready")
    print("\n# Two agents race for the next task: exactly one wins.")
    vybe("task", "claim", "--next", agent="worker-1")
    vybe("task", "claim", "--id", deploy, agent="worker-2")
    vybe("events", "--all", "--limit", "5", "--asc")


def scene_continuity() -> None:
    print("=" * 72 + "\nScene 2: memory and a hand-off; a second agent picks up\n" + "=" * 72)
    project = "/srv/billing"
    task = vybe(
        "task",
        "create",
        "--title",
        "Fix the invoice rounding bug",
        "--project-id",
        project,
        show=False,
    )["data"]["task"]["id"]
    vybe("resume", "--project-dir", project, show=False)
    vybe("task", "begin", "--id", task, show=False)
    vybe(
        "memory",
        "set",
        "-k",
        "tests",
        "-v",
        "Run `make test` before every commit",
        "--kind",
        "directive",
        "--pin",
    )
    vybe(
        "remember",
        "rounding=banker's rounding, 2 decimals",
        "--scope",
        "project",
        "--scope-id",
        project,
    )
    vybe(
        "memory",
        "set",
        "-k",
        "rounding",
        "-v",
        "half-up, 2 decimals (finance confirmed)",
        "--scope",
        "project",
        "--scope-id",
        project,
        "--supersedes",
        "rounding",
    )
    vybe("note", task, "cause found: float sums in invoice.total()", show=False)
    vybe("task", "set-status", "--id", task, "--status", "pending", show=False)
    vybe("task", "assign", "--id", task, "--to", "codex", "--note", "please finish the fix")
    print("\n# A new agent starts cold: resume hands it the task, the memory and the history.")
    data = vybe("resume", "--project-dir", project, agent="codex", show=False)["data"]
    print(f"focus: {data['focus_task_id']}  rule: {data['focus_rule']} ({data['focus_reason']})")
    print(f"budget: {data['brief']['budget']}  sha256: {data['brief']['brief_sha256'][:16]}…")
    print(data["prompt"])


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="vybe-demo-") as folder:
        os.environ["VYBE_DB_PATH"] = str(Path(folder) / "vybe.db")
        os.environ["VYBE_CONFIG_DIR"] = str(Path(folder) / "config")
        scene_tasks()
        scene_continuity()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
