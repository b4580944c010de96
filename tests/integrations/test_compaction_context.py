"""What a compaction of Claude Code or Codex leaves the agent: the exact command that
searches the record of its session."""

from __future__ import annotations

import shlex

from tests.conftest import VYBE
from tests.integrations.conftest import SESSIONS

PROMPT = "Please migrate the billing tables, oldest first; keep /srv/app/ledger.py as it is."


def test_the_compact_context_hands_the_agent_its_search_command(agent):
    agent.send("claude", "user_prompt_submit", prompt=PROMPT)
    context = agent.send("claude", "session_start_compact").context
    line = next(x for x in context.splitlines() if " search " in x)
    words = shlex.split(line)
    assert words[:3] == [VYBE, "--agent", "claude"]
    assert words[3:] == ["search", "<words>", "--session-id", f"claude:{SESSIONS['claude']}"]
    run = words[1:]
    run[run.index("<words>")] = "billing"
    found = agent.vybe.ok(*run)
    assert found["hits"][0]["snippet"].startswith("Please migrate the **billing**")
    codex = agent.send("codex", "session_start_compact").context
    assert f"--session-id codex:{SESSIONS['codex']}" in codex
    assert "--agent codex" in codex


def test_the_compact_context_gives_the_persons_words_once(agent):
    """Verbatim in their own section, and not again among the brief's recent prompts or its
    activity; a fresh session's brief still lists the recent prompts."""
    agent.send("claude", "user_prompt_submit", prompt=PROMPT)
    agent.send("claude", "user_prompt_submit", prompt="Then run the ledger checks twice.")
    context = agent.send("claude", "session_start_compact").context
    assert context.count("oldest first") == 1, context
    assert context.count("ledger checks twice") == 1, context
    assert "What the user was working on recently" not in context
    fresh = agent.send("claude", "session_start_startup").context
    assert "What the user was working on recently" in fresh
