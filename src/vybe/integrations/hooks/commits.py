"""Commits made while an agent session runs become ``commit`` events, once each.

No git hook goes into the person's repository: each hook of a session compares the
repository's HEAD with the one the session saw last (kept in ``<db>-git/``, one small file
per session), read from the files under ``.git`` (no process: this runs on every prompt).
Only when HEAD moved does ``git log`` list the commits between, oldest first; each becomes
one ``commit`` event (sha, branch, subject) linked to the agent's focus task, whether the
agent's shell tool made it or the person did by hand. A commit is logged once whichever
session or agent sees it. A session's first look only notes where HEAD is.

A look's file (600) is touched at most daily while its session's hooks run; one no hook
has looked from for LOOK_RETENTION_DAYS is removed with the housekeeping (a session is
never told it ended: headless runs resume it, and commits made by hand between two runs
are its own). The housekeeping runs in a hook, so each run looks at no more than
LOOKS_PER_RUN files, from a random place in the folder: a backlog goes over a few runs.
"""

from __future__ import annotations

import os
import time

from vybe import config, jsonio
from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import Hook, log_failure
from vybe.text import to_os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from vybe.jsonio import JSONObject

MAX_COMMITS = 100  # listed per hook at most (a rebase of a long branch is not a session's)
GIT_TIMEOUT = 3.0
LOOK_RETENTION_DAYS = 30
LOOKS_PER_RUN = 500
TOUCH_EVERY_SECONDS = 24 * 3600


def repository(cwd: str) -> tuple[str, str, str] | None:
    """(work tree, git dir, common dir) of the repository holding ``cwd``, or None."""
    folder = os.path.abspath(cwd)
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot):
            return folder, dot, dot
        if os.path.isfile(dot):  # a worktree or submodule: "gitdir: <path>"
            with open(dot, encoding="utf-8") as handle:
                text = handle.read().strip()
            if not text.startswith("gitdir:"):
                return None
            gitdir = os.path.join(folder, text[len("gitdir:") :].strip())
            common = _read(os.path.join(gitdir, "commondir"))
            return folder, gitdir, os.path.join(gitdir, common) if common else gitdir
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    except OSError:
        return None


def _ref(common: str, gitdir: str, name: str) -> str | None:
    for base in (gitdir, common):
        loose = _read(os.path.join(base, name))
        if loose:
            return loose
    packed = _read(os.path.join(common, "packed-refs")) or ""
    for line in packed.splitlines():
        sha, _, ref = line.partition(" ")
        if ref == name:
            return sha
    return None


def head(cwd: str) -> dict[str, Any] | None:
    """Where the repository of ``cwd`` stands: {root, sha, branch} (sha "" before the first
    commit); None outside one."""
    found = repository(cwd)
    if found is None:
        return None
    root, gitdir, common = found
    text = _read(os.path.join(gitdir, "HEAD")) or ""
    branch = None
    if text.startswith("ref:"):
        ref = text[4:].strip()
        branch = ref.removeprefix("refs/heads/")
        text = _ref(common, gitdir, ref) or ""
    return {"root": root, "sha": text, "branch": branch}


def looks_folder(db_path: str) -> str:
    return to_os(f"{db_path}-git")  # a UTF-8 store path under an ASCII locale too


def state_path(db_path: str, record_session: str) -> str:
    from vybe.digest import sha256_hex

    name = sha256_hex(record_session.encode("utf-8", "surrogatepass"))[:32]
    return os.path.join(looks_folder(db_path), f"{name}.json")


def _remember(path: str, where: dict[str, Any]) -> None:
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    config.write_whole(path, jsonio.dumps(where))


def _still_looking(path: str) -> None:
    """The look's time, renewed at most daily: the session's hooks still run."""
    try:
        if time.time() - os.stat(path).st_mtime > TOUCH_EVERY_SECONDS:
            os.utime(path)
    except OSError:
        pass


def forget_stale_looks(db_path: str, limit: int = LOOKS_PER_RUN) -> int:
    """Remove the looks (and a crashed write's temporary files) no hook has renewed for
    LOOK_RETENTION_DAYS, looking at ``limit`` files at most; how many went."""
    folder = looks_folder(db_path)
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    start = int.from_bytes(os.urandom(4), "big") % len(names) if names else 0
    cutoff = time.time() - LOOK_RETENTION_DAYS * 24 * 3600
    removed = 0
    for name in (names[start:] + names[:start])[:limit]:
        path = os.path.join(folder, name)
        try:
            if os.stat(path).st_mtime < cutoff:
                os.remove(path)
                removed += 1
        except OSError:
            continue
    return removed


def _seen(path: str) -> dict[str, Any] | None:
    text = _read(path)
    try:
        seen = jsonio.loads(text) if text else None
    except ValueError:
        return None
    return seen if isinstance(seen, dict) else None


def commits_between(root: str, old: str, new: str) -> list[dict[str, str]]:
    """The commits reachable from ``new`` and not from ``old``, oldest first."""
    import subprocess

    span = f"{old}..{new}" if old else new
    done = subprocess.run(
        ["git", "-C", root, "log", "--reverse", f"-{MAX_COMMITS}", "--format=%H%x1f%s", span],
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        return []
    found = []
    for line in done.stdout.splitlines():
        sha, _, subject = line.partition("\x1f")
        found.append({"sha": sha, "subject": subject})
    return found


def since_last_look(
    db_path: str, record_session: str, cwd: str
) -> tuple[list[JSONObject], Callable[[], None]]:
    """The commits since this session's last look ([] on its first), and a function that
    notes this look: called once they are logged, so a failed log is retried next hook."""
    where = head(cwd)
    if where is None:
        return [], lambda: None
    path = state_path(db_path, record_session)
    seen = _seen(path)
    if seen == where:
        _still_looking(path)
        return [], lambda: None
    commits: list[JSONObject] = []
    if seen is not None and seen.get("root") == where["root"] and where["sha"]:
        between = commits_between(where["root"], str(seen.get("sha") or ""), where["sha"])
        commits = [{**c, "branch": where["branch"]} for c in between]
    return commits, lambda: _remember(path, where)


def note_commits(hook: Hook) -> int:
    """Log the commits made in the session's repository since its last hook looked (by the
    agent's shell tool or by hand); how many. A failure is logged, never the hook's."""
    try:
        found, looked = since_last_look(hook.settings.db_path, hook.record_session, hook.cwd)
        for commit in found:
            hook_actions.log_commit(
                hook.store,
                hook.agent,
                commit,
                project_id=hook.project,
                session_id=hook.session_id,
            )
        looked()
        return len(found)
    except Exception as error:
        log_failure(hook.target, hook.event, error)
        return 0


def watching_commits(handler: Callable[[Hook], str | None]) -> Callable[[Hook], str | None]:
    """The handler, then a look for new commits (its answer unchanged)."""

    def run(hook: Hook) -> str | None:
        answer = handler(hook)
        note_commits(hook)
        return answer

    run.__doc__ = handler.__doc__
    return run
