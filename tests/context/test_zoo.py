"""Consolidators that behave as real models do, and the guarantees of the fallback table that
hold against each: the Mission and every kept user message survive byte for byte, no harness
text becomes the user's, a failed checkpoint changes nothing, the next request fits."""

from __future__ import annotations

import re

import pytest

from tests.context import zoo
from vybe.context import memo, mind
from vybe.context.budget import compute
from vybe.context.protocol import RECOLLECTION_OPEN, USER_WORDS
from vybe.context.turn import REFUSAL

BUDGET = compute(zoo.LIMITS)
CHECKPOINTS = 3
WORDS = re.compile(r'<user-message number="(\d+)">\n(.*?)\n</user-message>', re.DOTALL)
NOTE = re.compile(r"\n\[cut short; the whole message is #\d+ in the record\]$")


def entries(text: str) -> list[str]:
    return sorted(mind.strip_status(e) for e in mind.mission_entries(mind.parse(text)))


class Guarantees:
    """Checks every prepared request of a driven session against the fallback table."""

    def __init__(self) -> None:
        self.checkpoint = None

    def __call__(self, record, prepared) -> None:
        assert BUDGET.can_fit(prepared.tokens)
        latest = record.latest_checkpoint(zoo.S)
        if prepared.attempts and all(a.outcome == "failed" for a in prepared.attempts):
            assert latest == self.checkpoint
        if latest is not None and self.checkpoint is not None and latest != self.checkpoint:
            before, after = entries(self.checkpoint.mind), entries(latest.mind)
            assert all(after.count(e) >= before.count(e) for e in before)
        self.checkpoint = latest
        first = prepared.request.messages[0].content
        if first.startswith(RECOLLECTION_OPEN):
            self.words(record, first)

    @staticmethod
    def words(record, recollection: str) -> None:
        rows = {r.seq: r for r in record.messages(zoo.S)}
        for seq, shown in WORDS.findall(recollection):
            row = rows[int(seq)]
            assert row.type == "user"
            whole = NOTE.sub("", shown)
            assert row.text == shown or (whole != shown and row.text.startswith(whole))
        section = recollection.split(USER_WORDS)[1].split("# 6.")[0]
        assert zoo.HARNESS_MARK not in section


@pytest.fixture(scope="module")
def runs():
    """Every consolidator of the zoo, each driven through the same session once."""
    return {model.name: zoo.drive(model, CHECKPOINTS, Guarantees()) for model in zoo.zoo()}


@pytest.mark.parametrize("name", [m.name for m in zoo.zoo()])
def test_every_guarantee_holds_against_each_consolidator(runs, name):
    run = runs[name]
    assert run.attempts >= CHECKPOINTS or run.accepted == 0
    attempts = run.record.attempts(zoo.S)
    assert all(a.outcome in ("accepted", "failed") for a in attempts)


def fallbacks(run) -> set[str]:
    return {f for a in run.record.attempts(zoo.S) for f in a.fallbacks}


def latest(run):
    return run.record.latest_checkpoint(zoo.S)


def test_the_obedient_one_keeps_the_mission_and_the_constraint_without_repairs(runs):
    run = runs["consolidator"]
    assert run.accepted == run.attempts and not fallbacks(run)
    assert "- " + zoo.CORRECTION in entries(latest(run).mind)
    assert zoo.CONSTRAINT in run.last.request.messages[0].content


def test_a_sloppy_one_cannot_reword_the_mission_or_make_a_harness_input_the_users(runs):
    run = runs["sloppy"]
    assert run.accepted == run.attempts and "mind_salvaged" in fallbacks(run)
    kinds = {r.seq: r.type for r in run.record.messages(zoo.S)}
    assert all(kinds[m.seq] == "user" for m in latest(run).memo)


def test_renamed_headings_are_put_back_and_every_checkpoint_is_accepted(runs):
    run = runs["renamed"]
    assert run.accepted == run.attempts and "mind_headings_restored" in fallbacks(run)
    assert mind.parse(latest(run).mind).problems == []
    assert latest(run).now.startswith("# Now")


def test_a_mind_written_as_prose_in_the_reply_never_becomes_the_mind_or_the_now(runs):
    run = runs["prose-mind"]
    assert run.accepted == run.attempts
    assert latest(run).mind == "" and "My mind, revised" not in latest(run).now


def test_a_repair_answered_with_done_keeps_the_now_under_its_own_headings(runs):
    run = runs["repair-done"]
    attempts = run.record.attempts(zoo.S)
    assert run.accepted == run.attempts and all(a.repair_ran for a in attempts)
    assert all("now_of_first_reply" in a.fallbacks for a in attempts)
    assert latest(run).now.startswith("# Now\n## Where we are")
    assert "- " + zoo.CORRECTION in entries(latest(run).mind)


def test_a_ticked_constraint_outlives_a_tampered_memo_and_a_flood_of_logs(runs):
    run = runs["tamper-flood"]
    assert "memo_edited_kept_all" in fallbacks(run)
    assert any(m.ticked for m in latest(run).memo)
    shown = dict((int(s), t) for s, t in WORDS.findall(run.last.request.messages[0].content))
    constraint = next(r.seq for r in run.record.messages(zoo.S) if r.text == zoo.CONSTRAINT)
    assert shown[constraint] == zoo.CONSTRAINT
    assert any(t.startswith("Log of run") for t in shown.values())


@pytest.mark.parametrize("name", ["tags-unclosed", "tags-two-blocks", "tags-mentioned"])
def test_a_bad_block_fails_every_checkpoint_and_only_the_no_model_move_makes_room(runs, name):
    attempts = runs[name].record.attempts(zoo.S)
    assert all(a.outcome == "failed" for a in attempts if a.mode != "dropped")
    assert all(a.repair_ran for a in attempts if a.mode != "dropped")
    assert any(a.mode == "dropped" for a in attempts)


def test_memo_text_changed_beyond_its_boxes_keeps_every_candidate(runs):
    run = runs["memo-rewriter"]
    assert "memo_edited_kept_all" in fallbacks(run)
    assert all(m.checked for m in latest(run).memo)


def test_ticking_every_message_stays_within_the_memo_budget(runs):
    recollection = runs["ticks-all"].last.request.messages[0].content
    shown = "".join(text for _, text in WORDS.findall(recollection))
    assert memo.estimate(shown) <= BUDGET.memo_total


def test_ticking_none_keeps_no_words_and_loses_no_mission(runs):
    run = runs["ticks-none"]
    assert not any(m.checked for m in latest(run).memo)
    assert "- " + zoo.MISSION in entries(latest(run).mind)


def test_a_mind_over_its_limits_and_a_now_too_long_to_repair_are_kept_and_shown_cut(runs):
    run = runs["blows-limits"]
    assert fallbacks(run) & {"mind_over_limit_shown_cut", "mind_too_large_kept_previous"}
    assert run.accepted and "This now continues" in run.last.request.messages[0].content


def test_tools_not_offered_in_the_turn_do_nothing(runs):
    run = runs["tool-abuser"]
    assert run.accepted == run.attempts
    assert "- " + zoo.MISSION in entries(latest(run).mind)


def test_another_language_is_accepted_and_the_users_words_stay_as_typed(runs):
    run = runs["other-language"]
    assert run.accepted == run.attempts and "Arbeite an der Bitte" in latest(run).now


@pytest.mark.parametrize("name", ["silent-empty", "silent-length", "silent-tools"])
def test_no_usable_reply_fails_and_changes_nothing(runs, name):
    attempts = runs[name].record.attempts(zoo.S)
    assert attempts and all(a.outcome == "failed" for a in attempts if a.mode != "dropped")


def test_invented_references_are_flagged_in_the_audit(runs):
    """Flagged when first written; one carried over in the next now is not flagged again."""
    attempts = [a for a in runs["inventor"].record.attempts(zoo.S) if a.outcome == "accepted"]
    assert "src/billing/ghost.py" in attempts[0].flagged_references
    assert all(zoo.REFERENCES[0] not in a.flagged_references for a in attempts)


def test_the_refusal_is_what_a_tool_not_offered_gets(runs):
    model = next(m for m in zoo.zoo() if m.name == "tool-abuser")
    zoo.drive(model, 1)
    answers = [m.content for r in model.requests for m in r.messages if m.role == "tool"]
    assert REFUSAL in answers
