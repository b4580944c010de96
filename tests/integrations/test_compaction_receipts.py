"""A receipt for every compaction: Claude Code's and Codex's seen through PreCompact and
SessionStart(compact), vybe's from its checkpoint attempts; one line of it in the context
given back, all of it in `vybe session receipts` (CLI and MCP)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import TRANSCRIPTS
from tests.integrations.conftest import FIXTURES, SESSIONS, type_many
from vybe.actions import user_words
from vybe.context.receipt import line, ordinal
from vybe.context.recorder import record_assistant, record_user
from vybe.llm.base import Reply
from vybe.store import open_store
from vybe.store.record import SqliteRecord

CLAUDE = f"claude:{SESSIONS['claude']}"
CODEX = f"codex:{SESSIONS['codex']}"
RULE = "Never deploy on Fridays; you may run the migrations yourself."


def _receipts(agent, session):
    return agent.vybe.ok("session", "receipts", session)


def _transcript_with_usage(path):
    usage = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 1_000,
        "cache_read_input_tokens": 90_000,
        "output_tokens": 500,
    }
    line = {"type": "assistant", "message": {"role": "assistant", "content": [], "usage": usage}}
    path.write_text(json.dumps(line) + "\n")
    return path


def test_a_claude_compaction_gets_a_receipt_with_trigger_tokens_and_the_words_given_back(
    agent, tmp_path
):
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt="Goal: port billing to Go.")
    agent.send("claude", "user_prompt_submit", prompt="ok")
    agent.send("claude", "user_prompt_submit", prompt=RULE)
    agent.send("claude", "user_prompt_submit", prompt="Spec follows. " + "word " * 20_000)
    assert agent.send("claude", "pre_compact", trigger="auto").stdout == ""
    context = agent.send("claude", "session_start_compact").context
    first = context.splitlines()[0]
    assert first.startswith("1st compaction of this session; your 3 kept instructions were")
    assert "1 cut short (whole in the record)" in first
    data = _receipts(agent, CLAUDE)
    assert (data["count"], data["compactions"]) == (1, 1)
    receipt = data["receipts"][0]
    assert (receipt["compactor"], receipt["trigger"], receipt["outcome"]) == (
        "claude",
        "auto",
        "completed",
    )
    assert (receipt["verbatim"], receipt["cut"], receipt["kept"]) == ([1, 2, 3], [4], [])
    assert receipt["tokens_before"] == 91_510
    assert agent.log == ""


def test_the_brief_line_counts_every_compaction_of_the_session(agent, tmp_path):
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt=RULE)
    for n in (1, 2, 3):
        agent.send("claude", "pre_compact", trigger="manual")
        context = agent.send("claude", "session_start_compact").context
        assert context.startswith(f"{ordinal(n)} compaction of this session; your 1 kept")
    receipts = _receipts(agent, CLAUDE)["receipts"]
    assert [r["number"] for r in receipts] == [1, 2, 3]
    assert {r["trigger"] for r in receipts} == {"manual"}


def test_a_compaction_that_never_came_back_is_not_counted(agent, tmp_path):
    """PreCompact opened a receipt and no SessionStart(compact) followed (the compaction
    failed): the next one is the session's 1st, as `vybe session receipts` counts."""
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt=RULE)
    agent.send("claude", "pre_compact", trigger="auto")
    agent.send("claude", "pre_compact", trigger="manual")
    context = agent.send("claude", "session_start_compact").context
    assert context.startswith("1st compaction of this session")
    assert _receipts(agent, CLAUDE)["compactions"] == 1


def test_a_compaction_seen_only_at_session_start_still_gets_its_receipt(agent, tmp_path):
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt=RULE)
    agent.send("claude", "session_start_compact")
    receipt = _receipts(agent, CLAUDE)["receipts"][0]
    assert (receipt["trigger"], receipt["outcome"], receipt["verbatim"]) == (
        "unknown",
        "completed",
        [1],
    )


def test_tokens_before_come_from_the_real_transcripts_compact_boundary(agent, tmp_path):
    """The file as it stood when SessionStart(compact) fired: up to its compact boundary."""
    lines = (TRANSCRIPTS / "claude-codemie-code-624a4a58-compaction.jsonl").read_text()
    lines = lines.splitlines(keepends=True)
    boundary = next(i for i, x in enumerate(lines) if '"compact_boundary"' in x)
    agent.transcript = tmp_path / "t.jsonl"
    agent.transcript.write_text("".join(lines[:boundary]))
    agent.send("claude", "pre_compact", trigger="auto")
    before = _receipts(agent, CLAUDE)["receipts"][0]["tokens_before"]
    agent.transcript.write_text("".join(lines[: boundary + 1]))
    agent.send("claude", "session_start_compact")
    receipt = _receipts(agent, CLAUDE)["receipts"][0]
    assert before and before != 155_979
    assert receipt["tokens_before"] == 155_979
    typed = receipt["verbatim"] + receipt["cut"] + receipt["released"]
    assert len(typed) == len(set(typed)) > 0


BOUNDARY = FIXTURES / "claude" / "compact_boundary.jsonl"  # Claude Code 2.1.197's, as written


def test_a_claude_receipt_holds_the_tokens_before_and_after_its_compact_boundary_counts(
    agent, tmp_path
):
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt=RULE)
    agent.send("claude", "pre_compact", trigger="manual")
    with agent.transcript.open("a") as handle:
        handle.write(BOUNDARY.read_text())
    agent.send("claude", "session_start_compact")
    receipt = _receipts(agent, CLAUDE)["receipts"][0]
    assert (receipt["tokens_before"], receipt["tokens_after"]) == (382, 1510)


def _boundary_at(when: str) -> str:
    """The real boundary line, stamped ``when`` (Claude Code's format: UTC, milliseconds)."""
    line = json.loads(BOUNDARY.read_text())
    return json.dumps({**line, "timestamp": when}) + "\n"


@pytest.mark.parametrize(
    ("when", "counts"),
    [("9999-01-01T00:00:00.000Z", (382, 1510)), ("2020-01-01T00:00:00.000Z", None)],
)
def test_a_boundary_flushed_after_the_compactions_hooks_fills_its_receipt_at_the_next_import(
    agent, tmp_path, when, counts
):
    """Claude Code writes the boundary a few ms before SessionStart(compact) and flushes it
    later (seen in the real CLI): the next hook's import finds it and completes the counts;
    a boundary older than the receipt (an earlier compaction's) sets nothing."""
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt=RULE)
    agent.send("claude", "pre_compact", trigger="manual")
    agent.send("claude", "session_start_compact")
    assert _receipts(agent, CLAUDE)["receipts"][0]["tokens_after"] is None
    with agent.transcript.open("a") as handle:
        handle.write(_boundary_at(when))
    agent.send("claude", "stop", last_assistant_message="")
    receipt = _receipts(agent, CLAUDE)["receipts"][0]
    found = (receipt["tokens_before"], receipt["tokens_after"])
    if counts is None:  # what PreCompact read stays, and no after is made up
        assert found[0] != 382 and found[1] is None
    else:
        assert found == counts


def test_a_codex_receipt_holds_the_first_token_count_after_its_compaction(agent, tmp_path):
    """Codex counts what its compaction left in the token_count event after the compacted
    line; a later request's count is not it."""
    rollout = (FIXTURES / "codex" / "rollout-compact.jsonl").read_text().splitlines(True)
    compacted = [
        i for i, x in enumerate(rollout) if '"type": "compacted"' in x or '"type":"compacted"' in x
    ]
    agent.transcript = tmp_path / "rollout.jsonl"
    agent.transcript.write_text("".join(rollout[: compacted[0]]))
    agent.send("codex", "pre_compact")
    agent.transcript.write_text("".join(rollout[: compacted[1]]))  # and the next turn's counts
    agent.send("codex", "session_start_compact")
    receipt = _receipts(agent, CODEX)["receipts"][0]
    assert (receipt["tokens_before"], receipt["tokens_after"]) == (60_020, 6_299)


def test_a_codex_compaction_names_the_prompts_codex_kept_in_its_own_context(agent, tmp_path):
    """and gives them back no second time: they are in Codex's context as they were typed."""
    agent.transcript = tmp_path / "rollout.jsonl"
    shutil.copy(FIXTURES / "codex" / "rollout-compact.jsonl", agent.transcript)
    assert agent.send("codex", "pre_compact").stdout == ""
    context = agent.send("codex", "session_start_compact").context
    assert "stayed in Codex's own context" in context.splitlines()[0]
    receipt = _receipts(agent, CODEX)["receipts"][0]
    texts = dict(
        agent.rows(
            "SELECT context_seq, content_text FROM messages WHERE session_id = ? AND type = 'user'",
            CODEX,
        )
    )
    kept = "keep every test green [[bash: echo ok]]"
    assert [texts[s] for s in receipt["kept"]] == [kept]
    assert not set(receipt["kept"]) & set(receipt["verbatim"] + receipt["cut"])
    assert kept not in context
    assert receipt["tokens_before"] == 60_020
    assert (receipt["compactor"], receipt["trigger"]) == ("codex", "auto")


def test_vybe_checkpoints_have_receipts_from_their_attempts(vybe):
    vybe.ok("init")
    store = open_store(vybe.location)
    record = SqliteRecord(store)
    for n in range(40):
        record_user(record, "s1", f"step {n}: please keep the ledger rounding " + "x " * 300)
        record_assistant(record, "s1", Reply(f"done with step {n}. " + "y " * 300))
    store.close()
    vybe.ok("session", "checkpoint", "s1", "--scripted", "--window", "32000")
    data = vybe.ok("session", "receipts", "s1")
    receipt = data["receipts"][-1]
    assert (receipt["compactor"], receipt["trigger"], receipt["outcome"]) == (
        "vybe",
        "requested",
        "accepted",
    )
    assert receipt["tokens_before"] > receipt["tokens_after"] > 0
    users = [r for r in range(1, 81, 2)]
    given = receipt["verbatim"] + receipt["cut"] + receipt["kept"] + receipt["released"]
    assert sorted(given) == users
    assert receipt["kept"] and receipt["kept"][-1] == 79
    assert receipt["verbatim"] or receipt["cut"]
    assert data["compactions"] == 1


def test_a_failed_checkpoint_has_a_receipt_naming_its_failed_checks_repair_and_fallbacks(vybe):
    from vybe.context.checkpoints import Attempt

    vybe.ok("init")
    store = open_store(vybe.location)
    record = SqliteRecord(store)
    record_user(record, "s1", "Keep the ledger's rounding half-even.")
    problems = ("the reply has no <checkpoint> block", "NOW names no next step")
    failed = Attempt(
        "s1", "normal", "overflow", "failed", 90_000, problems=problems, repair_ran=True,
        fallbacks=("kept_the_previous_checkpoint",), error="the repair failed its checks too",
    )  # fmt: skip
    record.save(failed, None)
    store.close()
    data = vybe.ok("session", "receipts", "s1")
    receipt = data["receipts"][-1]
    assert (receipt["compactor"], receipt["outcome"], receipt["trigger"]) == (
        "vybe",
        "failed",
        "overflow",
    )
    assert receipt["failed_checks"] == list(problems) and receipt["repair_ran"] is True
    assert receipt["fallbacks"] == ["kept_the_previous_checkpoint"]
    assert receipt["error"] == "the repair failed its checks too"
    assert receipt["verbatim"] == receipt["cut"] == receipt["kept"] == []
    assert data["compactions"] == 0  # a failed attempt compacted nothing


def test_receipts_over_mcp_and_bad_input(vybe, mcp_tools):
    vybe.ok("session", "say", "s1", RULE)
    tools = mcp_tools(vybe.settings("mcp-agent"))
    found = tools.call("session_receipts", {"session_id": "s1"})
    assert not found["isError"] and found["structuredContent"]["count"] == 0
    missing = tools.call("session_receipts", {"session_id": "nope"})
    assert missing["structuredContent"]["error_code"] == "NOT_FOUND"
    huge = tools.call("session_receipts", {"session_id": "s" * 5000})
    assert huge["structuredContent"]["error_code"] == "INVALID_INPUT"
    vybe.refused("NOT_FOUND", "session", "receipts", "nope")
    vybe.refused("INVALID_INPUT", "session", "receipts", "s" * 5000)
    vybe.refused("USAGE_ERROR", "session", "receipts", "s1", "--limit", "0", exit_code=2)
    vybe.refused("USAGE_ERROR", "session", "receipts", exit_code=2)


def test_the_line_says_what_was_cut_kept_and_left_in_the_record():
    receipt = {"verbatim": [1], "cut": [2, 3], "kept": [4], "released": [5, 6]}
    assert line(2, receipt, "Codex") == (
        "2nd compaction of this session; your 1 kept instruction was restored verbatim;"
        " 2 cut short (whole in the record); 1 message stayed in Codex's own context;"
        " 2 more in the record only (search it)"
    )
    kept_by_the_harness = {"verbatim": [], "cut": [], "kept": [1], "released": []}
    assert line(1, kept_by_the_harness, "Codex") == (
        "1st compaction of this session; 1 message stayed in Codex's own context"
    )
    nothing = {"verbatim": [], "cut": [], "kept": [], "released": []}
    assert line(1, nothing, "Claude Code") == (
        "1st compaction of this session; your 0 kept instructions were restored verbatim"
    )
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "111th",
    ]


def test_a_long_sessions_compaction_reads_only_its_first_and_newest_messages(
    agent, tmp_path, store_location
):
    """A compaction's hook costs the same in the ten-thousandth message as in the tenth: the
    person's words are chosen among the first and the newest WINDOW, the receipt lists
    those, and its line counts the older ones as in the record only."""
    agent.transcript = tmp_path / "none.jsonl"
    agent.send("claude", "user_prompt_submit", prompt="Goal: port billing to Go.")
    extra = user_words.WINDOW + 200
    type_many(store_location, CLAUDE, [f"step {n}: keep going with the port" for n in range(extra)])
    context = agent.send("claude", "session_start_compact").context
    assert "Goal: port billing to Go." in context and f"step {extra - 1}:" in context
    receipt = _receipts(agent, CLAUDE)["receipts"][-1]
    listed = sorted(receipt["verbatim"] + receipt["cut"] + receipt["released"])
    assert len(listed) == user_words.WINDOW + 1 and listed[0] == 1
    assert receipt["typed"] == extra + 1  # the unlisted ones are older: in the record only
    given = len(receipt["verbatim"]) + len(receipt["cut"])
    older = extra + 1 - given
    assert f"{older} more in the record only (search it)" in context.splitlines()[0]


def test_a_receipt_reads_back_the_words_it_gave_and_what_it_left_in_the_record(agent, tmp_path):
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    spec = "Spec follows. " + "word " * 20_000
    for prompt in ("Goal: port billing to Go.", RULE, spec):
        agent.send("claude", "user_prompt_submit", prompt=prompt)
    agent.send("claude", "pre_compact", trigger="manual")
    agent.send("claude", "session_start_compact")
    [receipt] = _receipts(agent, CLAUDE)["receipts"]
    assert receipt["words"] == [
        {"seq": 1, "as": "verbatim", "text": "Goal: port billing to Go.", "chars": 25},
        {"seq": 2, "as": "verbatim", "text": RULE, "chars": len(RULE)},
        {"seq": 3, "as": "cut", "text": spec[:2000], "chars": len(spec)},
    ]
    assert receipt["left_in_record"] == 0
    assert receipt["search"].endswith(f"search '<words>' --session-id {CLAUDE}")


def test_receipts_as_text_say_what_became_of_each_message_for_a_person(agent, tmp_path):
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    for prompt in ("Goal: port billing to Go.", RULE, "Spec follows. " + "word " * 20_000):
        agent.send("claude", "user_prompt_submit", prompt=prompt)
    agent.send("claude", "pre_compact", trigger="manual")
    agent.send("claude", "session_start_compact")
    code, text = agent.vybe.text("session", "receipts", CLAUDE, "--format", "text")
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == f"session {CLAUDE}: 1 compaction, 1 receipt"
    assert lines[2].startswith("#1 · Claude Code · manual · ") and lines[2].endswith("completed")
    assert "  tokens: 91,510 -> ?" in lines
    assert "  given back verbatim (2):" in lines
    assert "    #1  Goal: port billing to Go." in lines
    assert any(x.startswith("    #3  Spec follows. word") and "[cut; whole: 100014 chars]" in x
               for x in lines)  # fmt: skip
    assert "  kept in Claude Code's own context (0)" in lines
    assert "  left in the record only: 0 of your messages" in lines
    assert lines[-1].startswith("find what was let go: ") and CLAUDE in lines[-1]


def test_receipts_as_text_of_a_session_with_no_compaction(agent):
    agent.send("claude", "user_prompt_submit", prompt="Goal: port billing to Go.")
    code, text = agent.vybe.text("session", "receipts", CLAUDE, "--format", "text")
    assert (code, text) == (0, f"session {CLAUDE}: 0 compactions, 0 receipts")


COMPACTED_CLAUDE = TRANSCRIPTS / "claude-codemie-code-624a4a58-compaction.jsonl"


def test_importing_a_transcript_with_a_compaction_gives_it_a_receipt_once(vybe):
    first = vybe.ok("session", "import", "--claude", str(COMPACTED_CLAUDE), "--session-id", "s")
    assert first["receipts_added"] == 1
    [receipt] = vybe.ok("session", "receipts", "s")["receipts"]
    assert (receipt["compactor"], receipt["trigger"], receipt["outcome"]) == (
        "claude", "auto", "completed",
    )  # fmt: skip
    assert receipt["tokens_before"] == 155_979
    assert receipt["at"] == "2026-01-07T20:58:27.907000Z"
    assert receipt["verbatim"] == receipt["cut"] == [] and receipt["released"]
    [(before,)] = vybe.sql(
        "SELECT COUNT(*) FROM messages WHERE session_id = 's' AND type = 'user'"
        " AND created_at <= ?",
        (receipt["at"],),
    )
    assert len(receipt["released"]) == before > 0
    again = vybe.ok("session", "import", "--claude", str(COMPACTED_CLAUDE), "--session-id", "s2")
    assert again["receipts_added"] == 1  # another session, its own receipt
    assert (
        vybe.ok("session", "import", "--claude", str(COMPACTED_CLAUDE), "--session-id", "s")[
            "receipts_added"
        ]
        == 0
    )
    assert vybe.ok("session", "receipts", "s")["count"] == 1


def test_an_imported_codex_compaction_names_the_messages_codex_kept(vybe):
    rollout = FIXTURES / "codex" / "rollout-compact.jsonl"
    assert (
        vybe.ok("session", "import", "--codex", str(rollout), "--session-id", "c")["receipts_added"]
        == 2
    )
    receipts = vybe.ok("session", "receipts", "c")["receipts"]
    assert [r["compactor"] for r in receipts] == ["codex", "codex"]
    kept = [w["text"] for w in receipts[0]["words"] if w["as"] == "kept"]
    assert kept == ["keep every test green [[bash: echo ok]]"]


def test_an_import_of_a_compaction_the_hooks_saw_adds_no_second_receipt(agent, tmp_path):
    """PreCompact and SessionStart(compact) made its receipt live; the transcript's boundary
    of the same moment, imported later, is that compaction."""
    from vybe import clock

    now = clock.now_iso()
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt="Goal: port billing to Go.")
    agent.send("claude", "pre_compact", trigger="manual")
    agent.send("claude", "session_start_compact")
    boundary = {
        "type": "system", "subtype": "compact_boundary", "uuid": "b-1",
        "timestamp": now.replace("000Z", "Z"),
        "compactMetadata": {"trigger": "manual", "preTokens": 91_510},
    }  # fmt: skip
    with agent.transcript.open("a") as file:
        file.write(json.dumps(boundary) + "\n")
    imported = agent.vybe.ok("session", "import", "--claude", str(agent.transcript),
                             "--session-id", CLAUDE)  # fmt: skip
    assert imported["receipts_added"] == 0
    assert _receipts(agent, CLAUDE)["count"] == 1


def test_the_same_imported_compaction_twice_is_one_receipt(vybe, store_location):
    from vybe.actions.receipts import from_import
    from vybe.integrations.importers.transcript_import import Compaction

    found = Compaction("claude:b-9", "claude", "auto", 100, 10, "2026-01-07T20:58:27.907000Z")
    store = open_store(store_location)
    try:
        assert [from_import(store, "s", "claude", [found]) for _ in range(2)] == [1, 0]
    finally:
        store.close()
    assert vybe.ok("session", "receipts", "s")["count"] == 1


def test_a_receipt_says_how_many_secrets_the_words_it_gave_back_had_redacted(agent, tmp_path):
    from tests.privacy.planted import planted

    (_, _, first), (_, _, second), (_, _, third) = planted()[:3]
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    for prompt in (f"Goal: port billing.\n{first}\n{second}", RULE, f"and {third}"):
        agent.send("claude", "user_prompt_submit", prompt=prompt)
    agent.send("claude", "pre_compact", trigger="manual")
    agent.send("claude", "session_start_compact")
    [receipt] = _receipts(agent, CLAUDE)["receipts"]
    assert receipt["verbatim"] == [1, 2, 3]
    assert receipt["redacted"] == 3
    assert not any(secret in json.dumps(receipt) for _, secret, _ in planted()[:3])
    _, text = agent.vybe.text("session", "receipts", CLAUDE, "--format", "text")
    assert "  secrets redacted in the words given back: 3" in text.splitlines()


def test_a_receipt_of_words_without_a_secret_counts_none_redacted(agent, tmp_path):
    agent.transcript = _transcript_with_usage(tmp_path / "t.jsonl")
    agent.send("claude", "user_prompt_submit", prompt=RULE)
    agent.send("claude", "pre_compact", trigger="manual")
    agent.send("claude", "session_start_compact")
    [receipt] = _receipts(agent, CLAUDE)["receipts"]
    assert (receipt["verbatim"], receipt["redacted"]) == ([1], 0)
    _, text = agent.vybe.text("session", "receipts", CLAUDE, "--format", "text")
    assert "secrets redacted" not in text
