"""config.yaml's ``retention:`` (messages, events, checkpoint attempts) is applied by
`vybe maintain`, shown first by `vybe maintain --dry-run`; none set keeps everything."""

from __future__ import annotations

import pytest

from tests.integrations.conftest import FIXTURES

TRANSCRIPT = FIXTURES / "claude" / "transcript.jsonl"  # its lines are of 2026-08-01
WORDS = "SELECT content_text FROM messages WHERE content_text <> '[forgotten]'"


def _configure(vybe, retention: str) -> None:
    path = vybe.config_dir / "config.yaml"
    path.write_text(path.read_text() + retention)


def _imported(vybe) -> int:
    vybe.ok("session", "import", "--claude", str(TRANSCRIPT))
    vybe.task("a task of today")
    return len(vybe.sql(WORDS))


def test_without_retention_maintain_keeps_every_word(vybe):
    kept = _imported(vybe)
    data = vybe.ok("maintain")
    assert data["retention"] == {}
    assert len(vybe.sql(WORDS)) == kept


def test_a_dry_run_says_what_retention_would_forget_and_changes_nothing(vybe):
    kept = _imported(vybe)
    _configure(vybe, "retention:\n  messages: 30d\n")
    before = vybe.dump()

    data = vybe.ok("maintain", "--dry-run")

    assert data["retention"]["messages"]["forgotten"]["messages"] == kept
    assert vybe.dump() == before


def test_maintain_forgets_what_is_older_than_its_retention_and_only_that_kind(vybe):
    _imported(vybe)
    events = vybe.sql("SELECT message FROM events ORDER BY id")
    _configure(vybe, "retention:\n  messages: 30d\n  checkpoint_attempts: 30d\n")

    data = vybe.ok("maintain")

    assert data["retention"]["messages"]["forgotten"]["messages"] > 5
    assert vybe.sql(WORDS) == []
    assert vybe.sql("SELECT message FROM events ORDER BY id") == events  # events: not set
    assert vybe.ok("maintain")["retention"]["messages"]["forgotten"]["messages"] == 0


def test_retention_keeps_what_is_younger(vybe):
    kept = _imported(vybe)
    _configure(vybe, "retention:\n  messages: 520w\n")
    assert vybe.ok("maintain")["retention"]["messages"]["forgotten"]["messages"] == 0
    assert len(vybe.sql(WORDS)) == kept


@pytest.mark.parametrize(
    "retention",
    [
        "retention:\n  messages: forever\n",
        "retention:\n  messages: 90\n",
        "retention:\n  messages: -3d\n",
        "retention:\n  memories: 90d\n",
        "retention: 90d\n",
    ],
)
def test_a_bad_retention_is_refused_and_changes_nothing(vybe, retention):
    _imported(vybe)
    _configure(vybe, retention)
    result = vybe.refused("CONFIG_INVALID", "maintain")
    assert result.envelope["error_context"]["field"].startswith("retention")
