"""resume: deltas, the focus rules in order, the cursor, peek purity and a pure brief."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess

import pytest

from tests.conftest import VYBE


def test_empty_store_has_no_focus(vybe):
    data = vybe.ok("resume")
    assert data["focus_task_id"] is None and data["focus_rule"] == "rule5"
    assert "No task assigned" in data["prompt"]


def test_deltas_are_the_events_since_the_cursor(vybe):
    task = vybe.task("t")
    first = vybe.ok("resume")
    assert [e["kind"] for e in first["deltas"]] == ["task_created"]
    vybe.ok("note", task, "step 1")
    second = vybe.ok("resume")
    assert second["old_cursor"] == first["new_cursor"]
    assert [e["message"] for e in second["deltas"]] == ["step 1"]
    assert vybe.ok("resume")["deltas"] == []


def test_limit_pages_the_deltas(vybe):
    for i in range(3):
        vybe.task(f"t{i}")
    assert vybe.ok("resume", "--limit", "2")["delta_count"] == 2
    assert vybe.ok("resume", "--limit", "2")["delta_count"] == 1


def test_rule1_keeps_an_in_progress_focus(vybe):
    low = vybe.task("low")
    vybe.task("high", "--priority", "9")
    vybe.ok("task", "begin", "--id", low)
    data = vybe.ok("resume")
    assert (data["focus_task_id"], data["focus_rule"]) == (low, "rule1")


def test_rule1_5_keeps_a_blocked_focus_unless_it_failed(vybe):
    a = vybe.task("a")
    vybe.ok("task", "begin", "--id", a)
    vybe.ok("block", a, "--reason", "waiting for the API key")
    assert vybe.ok("resume")["focus_rule"] == "rule1.5"
    vybe.ok("block", a, "--reason", "tests crash", "--failure")
    assert vybe.ok("resume")["focus_task_id"] is None


def test_rule2_takes_a_handoff_addressed_to_this_agent(vybe):
    vybe.task("urgent", "--priority", "9")
    handed = vybe.task("review")
    vybe.ok("task", "assign", "--id", handed, "--to", "bob", agent="alice")
    assert vybe.ok("resume", agent="carol")["focus_rule"] == "rule4"
    data = vybe.ok("resume", agent="bob")
    assert (data["focus_task_id"], data["focus_rule"]) == (handed, "rule2")


def test_rule2_ignores_a_handoff_that_was_reassigned(vybe):
    handed = vybe.task("review")
    vybe.ok("task", "assign", "--id", handed, "--to", "bob")
    vybe.ok("task", "assign", "--id", handed, "--to", "dave")
    assert vybe.ok("resume", agent="bob")["focus_rule"] == "rule5"
    assert vybe.ok("resume", agent="dave")["focus_rule"] == "rule2"


def test_handing_off_my_task_in_progress_releases_it_to_the_assignee(vybe):
    task = vybe.task("mine")
    vybe.task("next for alice", "--priority", "9")
    vybe.ok("task", "begin", "--id", task, agent="alice")
    vybe.ok("task", "assign", "--id", task, "--to", "bob", agent="alice")
    data = vybe.ok("resume", agent="bob")
    assert (data["focus_task_id"], data["focus_rule"]) == (task, "rule2")
    assert vybe.ok("resume", agent="alice")["focus_task_id"] != task
    vybe.ok("task", "begin", "--id", task, agent="bob")


def test_a_task_handed_to_another_agent_is_not_picked_by_rule4(vybe):
    handed = vybe.task("for bob", "--priority", "9")
    other = vybe.task("anyone's")
    vybe.ok("task", "assign", "--id", handed, "--to", "bob", agent="alice")
    assert vybe.ok("resume", "--peek", agent="carol")["focus_task_id"] == other
    assert vybe.ok("task", "claim", "--next", agent="carol")["task"]["id"] == other
    assert vybe.ok("resume", "--peek", agent="bob")["focus_task_id"] == handed


def test_handing_off_a_task_another_agent_holds_is_refused(vybe):
    task = vybe.task("carol's")
    vybe.ok("task", "begin", "--id", task, agent="carol")
    vybe.refused("ALREADY_CLAIMED", "task", "assign", "--id", task, "--to", "bob", agent="alice")


def test_handing_off_a_completed_task_is_refused(vybe):
    task = vybe.task("finished")
    vybe.ok("done", task)
    vybe.refused("NOT_CLAIMABLE", "task", "assign", "--id", task, "--to", "bob")


def test_rule2_finds_a_handoff_in_any_project_when_the_agent_has_none(vybe):
    vybe.ok("project", "create", "--id", "projq", "--name", "q")
    vybe.task("urgent", "--priority", "9")
    handed = vybe.task("review", "--project-id", "projq")
    vybe.ok("task", "assign", "--id", handed, "--to", "bob", agent="alice")
    data = vybe.ok("resume", "--peek", agent="bob")
    assert (data["focus_task_id"], data["focus_rule"]) == (handed, "rule2")


def test_rule2_in_a_project_takes_its_handoff_first_then_one_of_no_project(vybe, tmp_path):
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir(), elsewhere.mkdir()
    vybe.ok("project", "create", "--id", str(here), "--name", "here")
    vybe.ok("project", "create", "--id", str(elsewhere), "--name", "elsewhere")
    loose = vybe.task("of no project")
    other = vybe.task("elsewhere's", "--project-id", str(elsewhere))
    mine = vybe.task("here's", "--project-id", str(here))
    for task in (loose, other, mine):  # the oldest hand-off first
        vybe.ok("task", "assign", "--id", task, "--to", "bob", agent="alice")
    peek = ("resume", "--peek", "--project-dir", str(here))
    assert vybe.ok(*peek, agent="bob")["focus_task_id"] == mine
    vybe.ok("done", mine)
    assert vybe.ok(*peek, agent="bob")["focus_task_id"] == loose
    vybe.ok("done", loose)
    assert vybe.ok(*peek, agent="bob")["focus_rule"] == "rule5"


def test_rule1_lets_go_of_a_focus_another_agent_claimed_after_the_lease_expired(vybe, travel):
    task = vybe.task("contested")
    vybe.ok("task", "begin", "--id", task, "--lease", "1s", agent="alice")
    travel(2)
    vybe.ok("task", "claim", "--next", agent="bob")
    data = vybe.ok("resume", agent="alice")
    assert data["focus_task_id"] != task


def test_a_handoff_received_while_busy_waits_for_the_current_task_to_finish(vybe):
    busy = vybe.task("busy")
    handed = vybe.task("handed")
    vybe.task("other", "--priority", "9")
    vybe.ok("task", "begin", "--id", busy, agent="bob")
    vybe.ok("task", "assign", "--id", handed, "--to", "bob", agent="alice")
    assert vybe.ok("resume", agent="bob")["focus_rule"] == "rule1"
    vybe.ok("done", busy, agent="bob")
    data = vybe.ok("resume", agent="bob")
    assert (data["focus_task_id"], data["focus_rule"]) == (handed, "rule2")


def test_rule3_resumes_a_pending_focus(vybe):
    vybe.task("high", "--priority", "9")
    low = vybe.task("low")
    vybe.ok("resume", "--focus", low)
    data = vybe.ok("resume")
    assert (data["focus_task_id"], data["focus_rule"]) == (low, "rule3")


def test_rule4_picks_by_priority_then_age(vybe):
    vybe.task("old low")
    first_high = vybe.task("high 1", "--priority", "5")
    vybe.task("high 2", "--priority", "5")
    data = vybe.ok("resume")
    assert (data["focus_task_id"], data["focus_rule"]) == (first_high, "rule4")


def test_a_task_with_open_blockers_is_never_chosen(vybe):
    base = vybe.task("base")
    top = vybe.task("top", "--priority", "9")
    vybe.ok("task", "depend", "--id", top, "--on", base)
    assert vybe.ok("resume")["focus_task_id"] == base
    vybe.ok("task", "assign", "--id", top, "--to", "bob")
    assert vybe.ok("resume", agent="bob")["focus_task_id"] == base
    assert vybe("resume", "--focus", top).error_code == "BLOCKED_BY_DEPENDENCY"


def test_project_tasks_first_then_global_ones(vybe, tmp_path):
    project = str(tmp_path / "repo")
    vybe.ok("project", "create", "--name", "repo", "--id", project)
    vybe.task("global", "--priority", "9")
    local = vybe.task("local", "--project-id", project)
    assert vybe.ok("resume", "--project-dir", project)["focus_task_id"] == local
    vybe.ok("done", local)
    data = vybe.ok("resume", "--project-dir", project)
    assert data["focus_reason"] == "highest-priority ready task outside any project"


def test_resume_creates_and_focuses_the_project_dir(vybe, tmp_path):
    project = str(tmp_path / "repo")
    vybe.ok("resume", "--project-dir", project)
    assert vybe.ok("project", "get", "--id", project)["project"]["name"] == "repo"
    assert vybe.ok("resume")["focus_project_id"] == project


def test_resume_in_a_deleted_project_s_folder_makes_and_focuses_it_again(vybe, tmp_path):
    project = str(tmp_path / "repo")
    vybe.ok("resume", "--project-dir", project)
    before = vybe.ok("status")["agent_state"]["version"]
    vybe.ok("project", "delete", "--id", project, "--force")
    assert vybe.ok("status")["agent_state"]["version"] > before  # a plan made before is stale
    vybe.ok("resume", "--project-dir", project)
    assert vybe.ok("project", "get", "--id", project)["project"]["name"] == "repo"
    assert vybe.ok("status")["agent_state"]["focus_project_id"] == project


def _fingerprint(path) -> tuple[str, str]:
    """The bytes of the database and its WAL, then a dump of its content."""
    digest = hashlib.sha256()
    for suffix in ("", "-wal"):
        file = path.with_name(path.name + suffix)
        digest.update(file.read_bytes() if file.exists() else b"-")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    return digest.hexdigest(), hashlib.sha256(dump.encode()).hexdigest()


@pytest.mark.sqlite_only("the SQLite file's bytes; on the server: tests/postgres/test_store.py")
def test_peek_writes_nothing(vybe, tmp_path):
    task = vybe.task("t")
    vybe.ok("remember", "fact=value")
    vybe.ok("task", "assign", "--id", task, "--to", "default", agent="alice")
    before = _fingerprint(vybe.db_path)
    data = vybe.ok("resume", "--peek", "--project-dir", str(tmp_path / "new"))
    assert data["focus_rule"] == "rule2" and data["delta_count"] == 3
    vybe.ok("focus")
    vybe.ok("brief")
    assert _fingerprint(vybe.db_path) == before


def test_the_same_state_gives_the_same_brief(vybe):
    task = vybe.task("t")
    vybe.ok("remember", "fact=value")
    vybe.ok("note", task, "progress")
    first = vybe.ok("resume", "--peek")["brief"]
    second = vybe.ok("resume", "--peek")["brief"]
    assert first == second and len(first["brief_sha256"]) == 64
    vybe.ok("note", task, "more")
    assert vybe.ok("resume", "--peek")["brief"]["brief_sha256"] != first["brief_sha256"]


def test_only_a_real_resume_counts_memory_access(vybe):
    vybe.ok("remember", "fact=value")
    vybe.ok("resume", "--peek")
    assert vybe.ok("memory", "list")["memories"][0]["access_count"] == 0
    vybe.ok("resume")
    assert vybe.ok("memory", "list")["memories"][0]["access_count"] == 1


def test_a_replayed_resume_returns_the_first_result(vybe):
    first = vybe.ok("resume", "--request-id", "r1")
    vybe.task("t")
    assert vybe.ok("resume", "--request-id", "r1") == first


def test_cursor_is_monotonic_under_concurrent_resuming_processes(vybe):
    for i in range(5):
        vybe.task(f"t{i}")
    spawn = [
        subprocess.Popen(
            [VYBE, "resume", "--limit", "1"], env=vybe.env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(8)
    ]
    results = [json.loads(p.communicate()[0])["data"] for p in spawn]
    moves = sorted((r["old_cursor"], r["new_cursor"]) for r in results)
    assert moves == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 5), (5, 5), (5, 5)]
    delivered = sorted(e["id"] for r in results for e in r["deltas"])
    assert delivered == [1, 2, 3, 4, 5]
    assert vybe.ok("status")["agent_state"]["last_seen_event_id"] == 5


def test_bad_resume_input_is_a_json_error(vybe):
    assert vybe("resume", "--limit", "0").error_code == "USAGE_ERROR"
    assert vybe("resume", "--focus", "task_missing").error_code == "NOT_FOUND"
    assert vybe("resume", "--peek", "--focus", "task_missing").error_code == "NOT_FOUND"
