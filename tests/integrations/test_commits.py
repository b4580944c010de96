"""Commits made during a Claude Code or Codex session become `commit` events, once each,
linked to the focus task: seen by the next hook, whoever made them (a real git repository)."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest


def git(folder, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def commit(folder, subject: str) -> str:
    with (folder / "notes.txt").open("a") as notes:
        notes.write(subject + "\n")
    git(folder, "add", "notes.txt")
    git(folder, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", subject)
    return git(folder, "rev-parse", "HEAD")


@pytest.fixture
def repo(agent):
    git(agent.project, "init", "-q", "-b", "main")
    commit(agent.project, "before the session")
    return agent.project


def commit_events(agent) -> list[tuple]:
    rows = agent.rows(
        "SELECT message, task_id, metadata FROM events WHERE kind = 'commit' ORDER BY id"
    )
    return [
        (message, task, *(json.loads(meta).get(k) for k in ("sha", "branch", "subject")))
        for message, task, meta in rows
    ]


def test_a_commit_made_during_a_session_is_one_event_linked_to_the_focus_task(agent, repo):
    agent.send("claude", "session_start_startup")
    task = agent.vybe.task("Port billing", "--project-id", str(repo))
    agent.vybe.ok("task", "begin", "--id", task, agent="claude")
    sha = commit(repo, "Port the invoices table")
    agent.send("claude", "stop")
    agent.send("claude", "user_prompt_submit", prompt="next")
    assert commit_events(agent) == [
        (f"{sha[:12]} Port the invoices table", task, sha, "main", "Port the invoices table")
    ]


def test_the_first_look_only_notes_where_head_is(agent, repo):
    agent.send("claude", "session_start_startup")
    agent.send("claude", "user_prompt_submit", prompt="hello")
    assert commit_events(agent) == []


def test_several_commits_and_packed_refs_are_logged_in_order(agent, repo):
    agent.send("codex", "session_start_startup")
    first, second = commit(repo, "one"), commit(repo, "two")
    git(repo, "pack-refs", "--all")
    agent.send("codex", "post_tool_use_ok_bash")
    assert [e[2] for e in commit_events(agent)] == [first, second]


def test_a_commit_two_sessions_see_is_logged_once(agent, repo):
    agent.send("claude", "session_start_startup")
    agent.send("codex", "session_start_startup")
    commit(repo, "seen by both")
    agent.send("claude", "stop")
    agent.send("codex", "stop")
    assert len(commit_events(agent)) == 1


def test_a_commit_in_a_worktree_of_the_repository_is_seen(agent, repo, tmp_path):
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", "-b", "side", str(tree))
    agent.send("claude", "session_start_startup", cwd=str(tree))
    sha = commit(tree, "on the side")
    agent.send("claude", "stop", cwd=str(tree))
    assert [(e[2], e[3]) for e in commit_events(agent)] == [(sha, "side")]


def test_the_first_commit_of_a_new_repository_is_seen(agent):
    git(agent.project, "init", "-q", "-b", "main")
    agent.send("claude", "session_start_startup")
    sha = commit(agent.project, "first")
    agent.send("claude", "stop")
    assert [e[2] for e in commit_events(agent)] == [sha]


def test_outside_a_repository_there_is_nothing_to_look_at(agent):
    agent.send("claude", "session_start_startup")
    agent.send("claude", "stop")
    assert commit_events(agent) == [] and agent.log == ""


def looks(agent) -> list:
    return sorted(agent.vybe.db_path.with_name(agent.vybe.db_path.name + "-git").iterdir())


@pytest.mark.sqlite_only("the looks live beside the SQLite file (<db>-git/)")
# The hook leaves `vybe maintain` running, detached, by design: the Popen it drops says so.
@pytest.mark.filterwarnings("ignore:subprocess .* is still running:ResourceWarning")
def test_a_look_is_private_renewed_while_its_session_runs_and_forgotten_long_after(agent, repo):
    """The look of a session no hook has looked from for 30 days goes with the housekeeping
    SessionEnd starts; one whose hooks still run is renewed (at most daily), so it stays."""
    agent.send("claude", "session_start_startup", session_id="long-gone")
    [gone] = looks(agent)
    agent.send("codex", "session_start_startup")
    [running] = [p for p in looks(agent) if p != gone]
    assert {running.stat().st_mode & 0o777, gone.stat().st_mode & 0o777} == {0o600}
    long_ago = time.time() - 40 * 24 * 3600
    for look in (running, gone):
        os.utime(look, (long_ago, long_ago))
    agent.send("codex", "stop")  # the Codex session goes on
    assert running.stat().st_mtime > long_ago
    (agent.vybe.config_dir / "maintain.stamp").unlink()  # housekeeping is due
    agent.send("claude", "session_end")  # so the stale look goes
    assert running in looks(agent) and gone not in looks(agent)
    assert agent.log == ""


def test_one_run_of_the_housekeeping_forgets_at_most_its_share_of_stale_looks(tmp_path):
    """A backlog of stale looks goes over several runs, each looking at a bounded number of
    files; a look renewed within the retention is never removed."""
    from vybe.integrations.hooks import commits

    db_path = str(tmp_path / "vybe.db")
    folder = tmp_path / "vybe.db-git"
    folder.mkdir()
    long_ago = time.time() - (commits.LOOK_RETENTION_DAYS + 1) * 24 * 3600
    for n in range(25):
        stale = folder / f"stale-{n}.json"
        stale.write_text("{}")
        os.utime(stale, (long_ago, long_ago))
    fresh = {folder / f"fresh-{n}.json" for n in range(5)}
    for look in fresh:
        look.write_text("{}")
    runs = []
    while len(runs) < 20 and set(folder.iterdir()) != fresh:
        runs.append(commits.forget_stale_looks(db_path, limit=10))
    assert set(folder.iterdir()) == fresh
    assert max(runs) <= 10 and sum(runs) == 25 and len(runs) >= 3
