"""What a Claude compaction left, when its boundary line does not say (Claude Code versions
whose compact boundary has no ``postTokens``): the first reply after it, as its usage says."""

from __future__ import annotations

import json

from vybe.integrations.hooks import compaction


def _reply(sent: int, output: int = 50) -> str:
    usage = {"input_tokens": sent - 100, "cache_read_input_tokens": 100, "output_tokens": output}
    return json.dumps({"type": "assistant", "message": {"id": "m", "usage": usage}})


def _boundary(post: int | None) -> str:
    meta = {"trigger": "auto", "preTokens": 150_000}
    if post is not None:
        meta["postTokens"] = post
    return json.dumps({"type": "system", "subtype": "compact_boundary", "compactMetadata": meta})


def test_a_boundary_without_post_tokens_takes_them_from_the_first_reply_after_it():
    lines = [_reply(150_000), _boundary(None), _reply(21_000), _reply(23_000)]
    assert compaction.claude_boundary(list(reversed(lines))) == (150_000, 21_000)


def test_a_boundary_with_post_tokens_says_them_itself():
    lines = [_boundary(18_000), _reply(21_000)]
    assert compaction.claude_boundary(list(reversed(lines))) == (150_000, 18_000)


def test_a_boundary_with_no_reply_after_it_yet_leaves_them_unknown():
    lines = [_reply(140_000), _boundary(None)]
    assert compaction.claude_boundary(list(reversed(lines))) == (150_000, None)
