"""Private spans through the hooks, prompt by prompt: a prompt that is private from end to
end is recorded as the marker ``[private]`` in its place (so the count and order of the
person's prompts stay true), an unclosed ``<private>`` keeps everything after it out, and
a ``</private>`` closing it in a later prompt everything before it."""

from __future__ import annotations

import pytest

from tests.integrations.conftest import SESSIONS, Agent
from vybe.privacy import PRIVATE_MARKER

PROMPTS = (
    "first, read the ledger module",
    "<private>my landlord's number is 0171 555 0199</private>",
    "third, <private>and from here on it is all mine: the alarm code 4471",
    "the code ends here 4471</private> fifth, and public again",
)


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_a_wholly_private_prompt_is_a_marker_in_its_place_and_an_unclosed_tag_fails_closed(
    vybe, tmp_path, target
):
    agent = Agent(vybe, tmp_path)
    for prompt in PROMPTS:
        assert agent.send(target, "user_prompt_submit", prompt=prompt).code == 0
    typed = vybe.sql(
        "SELECT content_text FROM messages WHERE session_id = ? AND type = 'user' ORDER BY id",
        (f"{target}:{SESSIONS[target]}",),
    )
    assert typed == [(PROMPTS[0],), (PRIVATE_MARKER,), ("third, ",), (" fifth, and public again",)]
    dump = vybe.dump()
    assert "landlord" not in dump and "alarm code" not in dump and "0171 555" not in dump
    assert "code ends here" not in dump
    assert "read the ledger module" in dump
