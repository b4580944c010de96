"""Who started each session and in which project (sessions.agent_name, sessions.project_id):
kept with the session's row by every path that starts one, on both stores (``--store``)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import TRANSCRIPTS
from tests.integrations.conftest import FIXTURES, SESSIONS

PROMPTS = {"claude": "user_prompt_submit", "codex": "user_prompt_submit", "gemini": "before_agent"}


def origin(vybe, session: str) -> tuple | None:
    rows = vybe.sql("SELECT agent_name, project_id FROM sessions WHERE id = ?", (session,))
    return rows[0] if rows else None


@pytest.mark.parametrize("target", sorted(PROMPTS))
def test_an_agents_first_prompt_starts_its_session_with_the_agent_and_its_project(agent, target):
    assert agent.send(target, PROMPTS[target]).code == 0, agent.log
    session = f"{target}:{SESSIONS[target]}"
    assert origin(agent.vybe, session) == (target, str(agent.project))


def test_a_session_started_by_a_compaction_receipt_keeps_the_agent_and_its_project(agent):
    assert agent.send("claude", "pre_compact").code == 0, agent.log
    assert origin(agent.vybe, f"claude:{SESSIONS['claude']}") == ("claude", str(agent.project))


def test_a_renamed_agent_and_a_later_folder_leave_the_session_as_it_started(agent, tmp_path):
    agent.vybe.env["VYBE_AGENT"] = "reviewer"
    agent.send("claude", "user_prompt_submit", prompt="first")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    agent.vybe.env["VYBE_AGENT"] = "other"
    agent.send("claude", "user_prompt_submit", prompt="second", cwd=str(elsewhere))
    assert origin(agent.vybe, f"claude:{SESSIONS['claude']}") == ("reviewer", str(agent.project))


def test_session_say_starts_the_session_as_the_named_agent_in_the_working_folder(vybe):
    vybe.ok("session", "say", "s-said", "hello", agent="alice")
    assert origin(vybe, "s-said") == ("alice", os.getcwd())


def test_an_imported_transcript_is_the_named_agents_in_the_folder_the_file_names(vybe):
    path = FIXTURES / "claude" / "transcript.jsonl"
    data = vybe.ok("session", "import", "--claude-transcript", str(path), agent="alice")
    assert origin(vybe, data["session_id"]) == ("alice", "/home/u/proj")


def test_an_imported_rollout_is_codexs_in_the_folder_its_session_meta_names(vybe):
    rollouts = sorted(TRANSCRIPTS.glob("codex-*.jsonl"))
    data = vybe.ok("session", "import", "--codex-rollout", str(rollouts[0]), agent="codex")
    from vybe.integrations.importers.by_agent import folder_of

    assert origin(vybe, data["session_id"]) == ("codex", folder_of("codex", rollouts[0]))
