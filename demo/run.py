"""The main job, end to end: an agent's session as real `vybe` commands on a fresh store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from checkpoint_scene import scene as checkpoint_scene

VYBE = shutil.which("vybe", path=str(Path(sys.executable).parent)) or "vybe"


TASK_FIELDS = ("id", "title", "status", "claimed_by")


def _slim(value: object) -> object:
    """Tasks shown by the fields a reader follows; everything else as it is."""
    if isinstance(value, list):
        return [_slim(v) for v in value]
    if isinstance(value, dict) and {"title", "status"} <= value.keys():
        return {k: value[k] for k in TASK_FIELDS if value.get(k) is not None}
    return value


def _brief(value: object, width: int = 160) -> str:
    text = json.dumps(_slim(value), ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _summary(envelope: dict) -> str:
    """One line per top-level field: what an agent reads in the envelope."""
    if not envelope["success"]:
        return f"  error_code={envelope['error_code']}: {envelope['error'][:100]}"
    data = envelope["data"]
    if not isinstance(data, dict):
        return "  " + _brief(data)
    return "\n".join(f"  {key}: {_brief(value)}" for key, value in data.items())


def vybe(*args: str, agent: str = "claude", show: bool = True, stdin: str | None = None) -> dict:
    """Run one vybe command as an agent would, and print what it sees."""
    command = [VYBE, *args, "--agent", agent]
    done = subprocess.run(command, capture_output=True, text=True, check=False, input=stdin)
    envelope = json.loads(done.stdout)
    if show:
        print(f"\n$ vybe {' '.join(args)}   # as {agent}, exit {done.returncode}")
        print(_summary(envelope))
    return envelope


def banner(title: str) -> None:
    print("\n" + "=" * 72 + f"\n{title}\n" + "=" * 72)


def scene_tasks() -> None:
    banner("Scene 1: a project, tasks with a dependency, an agent at work")
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
    banner("Scene 2: memory and a hand-off; a second agent picks up")
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


def _hook(payload: dict) -> dict | None:
    done = subprocess.run(
        [VYBE, "hook", "run", "claude"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    return json.loads(done.stdout) if done.stdout.strip() else None


def scene_claude_code(folder: Path) -> None:
    banner("Scene 4: Claude Code compacts; the user's own words come back verbatim")
    common = {
        "session_id": "demo-session",
        "cwd": str(folder),
        "transcript_path": str(folder / "missing.jsonl"),
    }
    prompts = [
        "Migrate the invoices to the new schema. Never drop a column in production; "
        "ask me before any destructive step.",
        "ok",
        "use the staging replica for the dry run, not prod",
        "continue",
    ]
    for prompt in prompts:
        print(f"UserPromptSubmit: {prompt!r}")
        _hook({**common, "hook_event_name": "UserPromptSubmit", "prompt": prompt})
    print("\n# Claude Code compacts (its summary paraphrases); then SessionStart(compact):")
    out = _hook({**common, "hook_event_name": "SessionStart", "source": "compact"})
    context = out["hookSpecificOutput"]["additionalContext"] if out else ""
    print(context[context.find("## The user's words") :])
    print(f"\nEvery prompt back byte for byte: {all(p in context for p in prompts)}")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="vybe-demo-") as folder:
        os.environ["VYBE_DB_PATH"] = str(Path(folder) / "vybe.db")
        os.environ["VYBE_CONFIG_DIR"] = str(Path(folder) / "config")
        scene_tasks()
        scene_continuity()
        print("\nScene 3 follows: a long session kept inside a small window by checkpoints.")
        kept = checkpoint_scene(Path(folder) / "chat.db", turns=40)
        scene_claude_code(Path(folder))
        if kept["checkpoints"] < 2 or not kept["goal_kept"]:
            print("\nThe checkpoint scene did not keep the goal through two checkpoints.")
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
