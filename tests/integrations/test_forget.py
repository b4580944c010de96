"""`vybe forget` takes words back out of the store: out of every table and search index, and
on SQLite out of the files' bytes (database, -wal, -shm); on PostgreSQL out of a pg_dump.
A forgotten session stays forgotten when its transcript is imported again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integrations.conftest import FIXTURES, SESSIONS

PLANTED = "kestrel-violet-4471-orchard"  # a string that is nowhere else in a store
CLAUDE = FIXTURES / "claude" / "transcript.jsonl"
CLAUDE_SESSION = f"claude:{SESSIONS['claude']}"


def _planted_transcript(tmp_path: Path) -> Path:
    """The Claude fixture with the planted string in a typed prompt and a tool's command."""
    text = CLAUDE.read_text()
    assert "payments module" in text and "npm test" in text
    planted = text.replace("payments module", f"payments module {PLANTED}")
    path = tmp_path / "planted.jsonl"
    path.write_text(planted.replace("npm test", f"npm test -- {PLANTED}"))
    return path


def _plant_everywhere(vybe, agent, tmp_path: Path) -> str:
    """The planted string through a hook's prompt, a transcript import, a task, a note, a
    memory and a hand-off; the task's id."""
    assert agent.send("claude", "user_prompt_submit", prompt=f"deploy with {PLANTED} now").code == 0
    vybe.ok("session", "import", "--claude", str(_planted_transcript(tmp_path)))
    task = vybe.task(f"rotate {PLANTED} soon")
    vybe.ok("note", task, f"the old one was {PLANTED}, keep the rest")
    vybe.ok("memory", "set", "--key", "deploy.token", "--value", f"token {PLANTED}")
    vybe.ok("search", PLANTED)
    return task


def _occurrences(vybe, needle: str) -> int:
    """How many times ``needle`` is in the store's bytes: SQLite's files, a server's dump."""
    if hasattr(vybe, "url"):
        return vybe.pg_dump().count(needle.encode())
    found = 0
    for suffix in ("", "-wal", "-shm"):
        path = Path(f"{vybe.db_path}{suffix}")
        if path.exists():
            found += path.read_bytes().count(needle.encode())
    return found


def _file_bytes(vybe) -> bytes | str:
    if hasattr(vybe, "url"):
        return vybe.dump()
    return b"".join(
        Path(f"{vybe.db_path}{s}").read_bytes()
        for s in ("", "-wal")
        if Path(f"{vybe.db_path}{s}").exists()
    )


def test_forget_text_leaves_no_byte_of_the_string_in_the_store(vybe, agent, tmp_path):
    task = _plant_everywhere(vybe, agent, tmp_path)
    assert _occurrences(vybe, PLANTED) > 0

    data = vybe.ok("forget", "--text", PLANTED)

    assert data["selection"] == {"text": {"length": len(PLANTED)}}
    forgotten = data["forgotten"]
    assert forgotten["messages"] >= 3  # the hook's prompt, the import's prompt and command
    assert forgotten["events"] >= 2 and forgotten["tasks"] == 1 and forgotten["memory"] == 1
    assert _occurrences(vybe, PLANTED) == 0
    assert vybe.ok("search", PLANTED)["hits"] == []
    # The person's other words stay, the string alone replaced by the marker.
    shown = vybe.ok("task", "get", task)
    assert shown["task"]["title"] == "rotate [forgotten] soon"
    prompts = vybe.sql("SELECT content_text FROM messages WHERE content_text LIKE 'deploy%'")
    assert prompts == [("deploy with [forgotten] now",)]
    assert vybe.ok("search", "payments module")["hits"]
    assert vybe.ok("memory", "get", "--key", "deploy.token")["memory"]["value"] == (
        "token [forgotten]"
    )


def test_a_dry_run_counts_and_changes_no_byte(vybe, agent, tmp_path):
    _plant_everywhere(vybe, agent, tmp_path)
    before = _file_bytes(vybe)

    data = vybe.ok("forget", "--text", PLANTED, "--dry-run")

    assert data["dry_run"] is True and data["total"] >= 6
    assert _file_bytes(vybe) == before
    assert _occurrences(vybe, PLANTED) > 0


def test_forget_session_blanks_its_record_and_leaves_other_sessions(vybe, agent, tmp_path):
    _plant_everywhere(vybe, agent, tmp_path)
    vybe.ok("session", "import", "--codex", str(FIXTURES / "codex" / "rollout.jsonl"))
    others = vybe.sql(
        "SELECT content_text FROM messages WHERE session_id NOT LIKE 'claude:%' ORDER BY id"
    )

    vybe.ok("session", "checkpoint", CLAUDE_SESSION, "--scripted")

    data = vybe.ok("forget", "--session", CLAUDE_SESSION)

    assert data["forgotten"]["messages"] > 5
    assert data["forgotten"]["checkpoints"] == 1 and data["forgotten"]["checkpoint_attempts"] >= 1
    assert vybe.sql("SELECT COUNT(*) FROM checkpoints") == [(0,)]
    assert data["forgotten"]["events"] >= 1  # the hook's user_prompt event
    texts = vybe.sql(
        "SELECT DISTINCT content_text FROM messages WHERE session_id = ?", (CLAUDE_SESSION,)
    )
    assert texts == [("[forgotten]",)]
    assert (
        vybe.sql(
            "SELECT content_text FROM messages WHERE session_id NOT LIKE 'claude:%' ORDER BY id"
        )
        == others
    )
    assert "payments module" not in str(vybe.ok("search", "payments"))
    assert _occurrences(vybe, "payments module") == 0


def test_a_forgotten_session_never_comes_back_from_an_import_of_its_transcript(
    vybe, agent, tmp_path
):
    path = _planted_transcript(tmp_path)
    first = vybe.ok("session", "import", "--claude", str(path))
    count = vybe.sql("SELECT COUNT(*) FROM messages WHERE session_id = ?", (CLAUDE_SESSION,))
    vybe.ok("forget", "--session", first["session_id"])

    again = vybe.ok("session", "import", "--claude", str(path))
    assert sum(again["imported"].values()) == 0
    assert (
        vybe.sql("SELECT COUNT(*) FROM messages WHERE session_id = ?", (CLAUDE_SESSION,)) == count
    )
    assert _occurrences(vybe, PLANTED) == 0
    # The Stop hook imports the same transcript: nothing comes back that way either.
    agent.transcript = path
    assert agent.send("claude", "stop").code == 0
    assert _occurrences(vybe, PLANTED) == 0


def test_forget_before_a_date_blanks_the_older_record_only(vybe, agent, tmp_path):
    vybe.ok("session", "import", "--claude", str(_planted_transcript(tmp_path)))
    task = vybe.task("a task of today")  # written now: after the cut

    data = vybe.ok("forget", "--before", "2026-09-01")  # the transcript is of 2026-08-01

    assert data["forgotten"]["messages"] > 5
    assert vybe.ok("task", "get", task)["task"]["title"] == "a task of today"
    assert _occurrences(vybe, PLANTED) == 0


def test_forget_within_a_project_leaves_other_projects(vybe, agent, tmp_path):
    agent.send("claude", "user_prompt_submit", prompt=f"here {PLANTED} in proj")
    vybe.ok("project", "create", "--name", "else", "--project-id", "/somewhere/else")
    elsewhere = vybe.task(f"other {PLANTED}", "--project-id", "/somewhere/else")

    vybe.ok("forget", "--text", PLANTED, "--project-id", str(agent.project))

    assert vybe.ok("task", "get", elsewhere)["task"]["title"] == f"other {PLANTED}"
    texts = [r[0] for r in vybe.sql("SELECT content_text FROM messages WHERE type = 'user'")]
    assert texts == ["here [forgotten] in proj"]


@pytest.mark.parametrize(
    "args",
    [
        ("forget",),
        ("forget", "--text", "short"),
        ("forget", "--before", "2026-13-01"),
        ("forget", "--before", "yesterday"),
        ("forget", "--session", "claude:x", "--text", PLANTED),
        ("forget", "--text", PLANTED, "--before", "2026-01-01", "--session", "s"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(vybe, agent, tmp_path, args):
    _plant_everywhere(vybe, agent, tmp_path)
    result = vybe.refused("INVALID_INPUT", *args)
    assert result.envelope["error_context"]["field"] in ("selector", "text", "before")


@pytest.mark.parametrize(
    "change",
    [
        "UPDATE messages SET content_text = 'x'",
        "DELETE FROM checkpoint_attempts",
        "DELETE FROM checkpoints",
        "DELETE FROM compaction_receipts",
        "UPDATE events SET message = 'x'",
    ],
)
def test_the_record_stays_append_only_outside_a_forget(vybe, agent, tmp_path, change):
    vybe.ok("session", "import", "--claude", str(_planted_transcript(tmp_path)))
    vybe.ok("session", "checkpoint", CLAUDE_SESSION, "--scripted")
    vybe.task("a task, so the log holds an event")
    before = vybe.dump()
    with pytest.raises(Exception, match=r"append-only|are kept"):
        vybe.sql(change)
    assert vybe.dump() == before


def test_a_forgotten_codex_session_never_comes_back_from_its_rollout(vybe, agent):
    rollout = FIXTURES / "codex" / "rollout.jsonl"
    first = vybe.ok("session", "import", "--codex", str(rollout))
    session = first["session_id"]
    (typed,) = vybe.sql(
        "SELECT content_text FROM messages WHERE session_id = ? AND type = 'user' LIMIT 1",
        (session,),
    )[0]
    assert len(typed) >= 8 and _occurrences(vybe, typed) > 0
    vybe.ok("forget", "--session", session)

    again = vybe.ok("session", "import", "--codex", str(rollout))
    assert sum(again["imported"].values()) == 0
    assert _occurrences(vybe, typed) == 0
