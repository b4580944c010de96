"""vybe session checkpoint and replay, as people run them: offline, or against a fake server."""

from __future__ import annotations

import pytest

from tests.conftest import TRANSCRIPTS
from tests.fakes.servers import FakeServer, openai_reply

SMALL = str(TRANSCRIPTS / "claude-codemie-code-9eda1058-summaries.jsonl")
COMPACTION = str(TRANSCRIPTS / "claude-codemie-code-624a4a58-compaction.jsonl")
RULE = "Never push to main; please open one pull request per service."


def say_many(vybe, session: str, count: int) -> None:
    vybe.ok("session", "say", session, RULE)
    for i in range(count):
        vybe.ok("session", "say", session, f"step {i}: look at services/svc{i}/db.py " + "x" * 2400)


def test_checkpoint_below_the_threshold_is_taken_and_reported(vybe):
    vybe.ok("session", "import", "--claude", SMALL, "--session", "t1")
    data = vybe.ok("session", "checkpoint", "t1", "--scripted", "--window", "32000")
    attempt = data["attempt"]
    assert attempt["outcome"] == "accepted" and attempt["reason"] == "requested"
    assert attempt["tokens_after"] < attempt["tokens_before"] < 20_000
    assert data["kept"]["mission"] == ["- show tools and store response in file"]
    assert vybe.ok("session", "show", "t1")["checkpoint"]["id"] == attempt["checkpoint_id"]


def test_failed_checkpoint_changes_nothing(vybe):
    say_many(vybe, "s1", 12)
    before = vybe.ok("session", "context", "s1", "--window", "200000")["request"]
    with FakeServer(lambda r: openai_reply("I would rather not.")) as server:
        data = vybe.ok(
            "session", "checkpoint", "s1", "--model", "m", "--base-url", server.url + "/v1"
        )
    assert data["attempt"]["outcome"] == "failed" and data["attempt"]["repair_ran"]
    assert data["kept"] is None
    assert vybe.ok("session", "show", "s1")["checkpoint"] is None
    assert vybe.ok("session", "context", "s1", "--window", "200000")["request"] == before


def test_checkpoint_of_an_unknown_session_is_not_found(vybe):
    assert vybe("session", "checkpoint", "nope", "--scripted").error_code == "NOT_FOUND"


def test_context_of_an_unknown_session_is_not_found(vybe):
    vybe.ok("init")
    assert vybe("session", "context", "nope").error_code == "NOT_FOUND"


@pytest.mark.parametrize("limit", ["0", "-5", "1001", "many"])
def test_session_list_limit_outside_its_bounds_is_a_usage_error(vybe, limit):
    vybe.refused("USAGE_ERROR", "session", "list", "--limit", limit, exit_code=2)


@pytest.mark.parametrize("flag", ["--window", "--max-output"])
@pytest.mark.parametrize("value", ["0", "-1"])
def test_a_non_positive_token_override_is_a_usage_error(vybe, flag, value):
    say_many(vybe, "s1", 1)
    vybe.refused("USAGE_ERROR", "session", "context", "s1", flag, value, exit_code=2)


def test_replay_reports_each_checkpoint_and_leaves_the_source_alone(vybe):
    vybe.ok("session", "import", "--claude", COMPACTION, "--session", "c1")
    data = vybe.ok("session", "replay", "c1", "--scripted", "--window", "32000")
    assert data["source_session"] == "c1" and data["accepted"] >= 5
    first = data["checkpoints"][0]
    assert set(first["kept"]) >= {"mission", "user_words", "now_tokens", "tokens_after"}
    assert vybe.ok("session", "show", "c1")["checkpoint"] is None
    assert vybe.ok("session", "show", data["session_id"])["checkpoint"] is not None


def test_replay_of_an_unknown_session_is_not_found(vybe):
    assert (
        vybe("session", "replay", "nope", "--scripted", "--window", "8000").error_code
        == "NOT_FOUND"
    )


def test_an_imported_transcript_joins_the_session_its_hooks_record_into(vybe):
    imported = vybe.ok("session", "import", "--claude", COMPACTION)
    assert imported["session_id"] == "claude:624a4a58-b34c-462d-a70d-13421c8125a8"


def test_an_imported_codex_rollout_joins_its_hook_session_and_resumes(vybe):
    rollout = str(TRANSCRIPTS / "codex-codemie-code-019e1625-v0.125.jsonl")
    data = vybe.ok("session", "import", "--codex", rollout)
    assert data["session_id"] == "codex:019e1625-789d-76c0-80ab-3724b5ddb799"
    assert data["imported"] == {"user": 2, "assistant": 66, "tool": 102}
    assert (data["lines"], data["skipped_lines"]) == (386, 0)
    again = vybe.ok("session", "import", "--codex", rollout)
    assert again["lines"] == 0 and again["offset"] == data["offset"]


def test_import_needs_exactly_one_source(vybe):
    assert vybe("session", "import").error_code == "USAGE_ERROR"
    both = vybe("session", "import", "--claude", SMALL, "--codex", SMALL)
    assert both.error_code == "USAGE_ERROR"


def test_import_of_a_missing_rollout_is_not_found(vybe, tmp_path):
    missing = str(tmp_path / "gone.jsonl")
    assert vybe("session", "import", "--codex", missing).error_code == "NOT_FOUND"


@pytest.mark.parametrize("bad", ["..", "../x", "a b", "", "x" * 300])
def test_a_session_id_that_is_not_one_is_refused_before_anything_is_written(vybe, bad):
    vybe.ok("init")
    for argv in (
        ("session", "say", bad, "hello"),
        ("session", "checkpoint", bad, "--scripted"),
        ("session", "replay", bad, "--scripted"),
    ):
        vybe.refused("INVALID_INPUT", *argv)


def test_checkpoint_whose_mind_stays_empty_reports_what_it_kept(vybe):
    """A model that writes only its now: the mind stays empty, and the report still works."""
    say_many(vybe, "s2", 3)
    now = (
        "<checkpoint>\n# 6. Now\n## Current step\n"
        + "Reading the services. " * 40
        + "\n</checkpoint>"
    )
    with FakeServer(lambda r: openai_reply(now)) as server:
        data = vybe.ok(
            "session", "checkpoint", "s2", "--model", "m", "--base-url", server.url + "/v1"
        )
    assert data["attempt"]["outcome"] == "accepted"
    assert data["kept"]["mission"] == [] and data["kept"]["mind_tokens"] == 0
