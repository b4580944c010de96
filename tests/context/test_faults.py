"""One scripted misbehaviour per row of the seed's checks-and-fallbacks table, and the
guarantee that holds after each."""

import copy

import pytest

from tests.context.sessions import (
    CONSTRAINT,
    MISSION,
    SYSTEM,
    S,
    edit,
    final,
    opening,
    tool,
    work,
)
from vybe.agent.offline import Consolidator
from vybe.context import mind
from vybe.context.assemble import load as load_view
from vybe.context.assemble import recollection
from vybe.context.budget import ModelLimits, compute, estimate
from vybe.context.engine import Engine
from vybe.context.record import MemoryRecord
from vybe.context.recorder import record_user
from vybe.context.turn import BUDGET_USED, REFUSAL
from vybe.errors import ModelError
from vybe.llm.base import Reply, ToolCall, ToolSpec
from vybe.llm.scripted import ScriptedModel
from vybe.store import SqliteStore
from vybe.store.record import SqliteRecord

# Each test copies a primed SQLite store (sqlite3's backup); the record on the server is
# tested through the record fixture elsewhere in tests/context.
pytestmark = pytest.mark.sqlite_only("each test copies a primed SQLite store (sqlite3 backup)")

LIMITS = ModelLimits(window=32_000, max_output=4_000)
ENTRY = "- " + MISSION


def prime(record):
    """A session with one accepted checkpoint, then enough new work to be due again."""
    opening(record)
    work(record, 40)
    first = Engine(record, Consolidator(), LIMITS).prepare(S, SYSTEM)
    assert first.checkpointed
    record_user(record, S, "Prefer small commits, please.")
    work(record, 30, start=40)


@pytest.fixture(scope="module")
def primed_once(tmp_path_factory):
    """The primed session built once per kind of record; each test gets its own copy."""
    memory = MemoryRecord()
    prime(memory)
    store = SqliteStore(tmp_path_factory.mktemp("primed") / "vybe.db")
    prime(SqliteRecord(store))
    yield {"memory": memory, "sqlite": store}
    store.close()


@pytest.fixture
def primed(record, primed_once):
    """This test's own primed session, in the record kind it runs on."""
    if isinstance(record, MemoryRecord):
        return copy.deepcopy(primed_once["memory"])
    primed_once["sqlite"].conn.backup(record.store.conn)
    return record


def run(record, tmp_path, *steps):
    model = ScriptedModel(list(steps))
    prepared = Engine(record, model, LIMITS).prepare(S, SYSTEM)
    return prepared, record.attempts(S)[-1], model


def assert_nothing_changed(record, before, prepared):
    assert record.latest_checkpoint(S) == before
    assert prepared.checkpoint_id == before.id


@pytest.mark.parametrize(
    "bad",
    [
        Reply("I consolidated everything."),
        Reply(final().text + "\n" + final().text),
        Reply("<checkpoint>\n\n</checkpoint>"),
        Reply("<checkpoint>\nshort\n</checkpoint>"),
        Reply("<checkpoint>\n# 6. Now\n" + "words " * 60),
    ],
    ids=["no block", "two blocks", "empty now", "short now", "unclosed"],
)
def test_no_usable_now_fails_and_changes_nothing(primed, tmp_path, bad):
    before = primed.latest_checkpoint(S)
    prepared, attempt, model = run(primed, tmp_path, bad, bad)
    assert attempt.outcome == "failed" and attempt.repair_ran
    assert_nothing_changed(primed, before, prepared)
    assert "cannot be used yet" in model.requests[1].messages[-1].content


def test_failed_threshold_checkpoint_sends_the_request_as_it_was(primed, tmp_path):
    before = Engine(primed, ScriptedModel([]), ModelLimits(window=1_000_000)).prepare(S, SYSTEM)
    prepared, _, _ = run(primed, tmp_path, Reply("no"), Reply("no"))
    assert prepared.request.messages == before.request.messages


def test_lost_headings_keep_every_heading_and_mission(primed, tmp_path):
    broken = edit("mind.md", "## Agreements\n", "")
    _prepared, attempt, _ = run(primed, tmp_path, broken, final(), final())
    stored = primed.latest_checkpoint(S).mind
    assert attempt.outcome == "accepted" and "lost its structure" in attempt.problems[0]
    assert mind.parse(stored).problems == []
    assert ENTRY in stored.splitlines()


@pytest.mark.parametrize("new", ["", "- Move services to Postgres."], ids=["deleted", "reworded"])
def test_mission_entry_survives_word_for_word(primed, tmp_path, new):
    _prepared, attempt, model = run(primed, tmp_path, edit("mind.md", ENTRY, new), final(), final())
    assert any("Mission entry" in p for p in attempt.problems)
    assert "Mission entry" in model.requests[2].messages[-1].content
    assert ENTRY in primed.latest_checkpoint(S).mind.splitlines()
    assert attempt.fallbacks == ("mind_salvaged",)


def test_marking_status_is_not_a_problem(primed, tmp_path):
    done = edit("mind.md", ENTRY, ENTRY + " (status: done)")
    _prepared, attempt, _ = run(primed, tmp_path, done, final())
    assert attempt.outcome == "accepted" and attempt.problems == () and not attempt.repair_ran


def test_reset_to_template_keeps_previous_mind(primed, tmp_path):
    before = primed.latest_checkpoint(S).mind
    reset = edit("mind.md", mind.seed(before), mind.template())
    _, attempt, _ = run(primed, tmp_path, reset, final(), final())
    assert primed.latest_checkpoint(S).mind == before
    assert attempt.fallbacks == ("mind_reset_kept_previous",)


def test_over_long_section_is_stored_whole_and_shown_cut(primed, tmp_path):
    lessons = "\n".join(f"- lesson {i}: " + "check the migration twice " * 4 for i in range(40))
    grow = edit("mind.md", "(none yet: lessons)", lessons)
    _, attempt, _ = run(primed, tmp_path, grow, final(), final())
    stored = primed.latest_checkpoint(S)
    assert attempt.fallbacks == ("mind_over_limit_shown_cut",)
    assert lessons in stored.mind
    shown = recollection(load_view(primed, S), compute(LIMITS))
    assert "[This section continues; the whole mind is in the record" in shown
    assert f"the whole mind is in the record: vybe session show {S}]" in shown


def test_mind_grown_past_twice_its_limits_keeps_previous(record, tmp_path):
    opening(record)
    work(record, 40)
    Engine(record, Consolidator(), LIMITS).prepare(S, SYSTEM)
    before = record.latest_checkpoint(S).mind
    work(record, 5, start=40)
    huge = edit("mind.md", "(none yet: lessons)", "z" * 12_000)
    model = ScriptedModel([huge, final(), final()])
    engine = Engine(record, model, LIMITS)
    attempt = engine.checkpoint_now(S, SYSTEM)
    assert record.latest_checkpoint(S).mind == before
    assert attempt.fallbacks == ("mind_too_large_kept_previous",)


def test_memo_text_edited_keeps_every_candidate(primed, tmp_path):
    memo_line = edit("memo.md", "Never push", "Always push")
    _, attempt, _ = run(primed, tmp_path, memo_line, final(), final())
    stored = primed.latest_checkpoint(S)
    assert "memo_edited_kept_all" in attempt.fallbacks
    assert stored.memo and all(m.checked for m in stored.memo)


def test_memo_over_budget_is_shortened_evenly_and_never_stored_short(record, tmp_path):
    for i in range(12):
        record_user(record, S, f"Rule {i}: please " + "keep this exact wording " * 20)
    work(record, 38)
    ticks = tuple(
        ToolCall(
            f"e{i}",
            "edit",
            {"path": "memo.md", "old_text": f"- [ ] (#{i + 1})", "new_text": f"- [x] (#{i + 1})"},
        )
        for i in range(12)
    )
    _, attempt, _ = run(record, tmp_path, Reply("", ticks, "tool_use"), final(), final())
    budget = compute(LIMITS)
    assert any("checked memo messages total" in p for p in attempt.problems)
    assert "memo_over_budget_shortened" in attempt.fallbacks
    stored = record.latest_checkpoint(S)
    assert sum(m.checked for m in stored.memo) == 12
    shown = recollection(load_view(record, S), budget)
    words = shown.split("# 5. The user's words")[1].split("# 6. Now")[0]
    assert estimate(words) <= budget.memo_total + 12 * 15 + 40
    assert "in the record" in words


def test_tools_past_the_budget_fail_the_turn(primed, tmp_path):
    before = primed.latest_checkpoint(S)
    reads = [tool("read", path="mind.md") for _ in range(7)]
    prepared, attempt, model = run(primed, tmp_path, *reads)
    assert attempt.outcome == "failed" and "after the tool budget" in attempt.error
    assert model.requests[-1].messages[-1].content == BUDGET_USED
    assert_nothing_changed(primed, before, prepared)


def test_untouched_memo_when_rounds_ran_out_keeps_every_candidate(primed, tmp_path):
    reads = [tool("read", path="memo.md") for _ in range(6)]
    _, attempt, _ = run(primed, tmp_path, *reads, final())
    assert attempt.rounds == 5
    assert "memo_untouched_kept_all" in attempt.fallbacks
    assert all(m.checked for m in primed.latest_checkpoint(S).memo)


def test_other_tools_are_refused_and_do_nothing(primed, tmp_path):
    _, attempt, model = run(primed, tmp_path, tool("bash", command="rm -rf /"), final())
    assert model.requests[1].messages[-1].content == REFUSAL
    assert attempt.outcome == "accepted"


def test_conversation_tools_offered_in_the_turn_are_still_refused(primed, tmp_path):
    write = ToolSpec("write", "Write a file.", {"type": "object"})
    model = ScriptedModel([tool("write", path="mind.md", content=""), final()])
    Engine(primed, model, LIMITS).prepare(S, SYSTEM, (write,))
    assert model.requests[1].messages[-1].content == REFUSAL
    assert ENTRY in primed.latest_checkpoint(S).mind.splitlines()


def test_paths_outside_the_scratch_files_are_refused(primed, tmp_path):
    _, _, model = run(primed, tmp_path, tool("read", path="/etc/passwd"), final())
    assert "Only mind.md and memo.md" in model.requests[1].messages[-1].content


def test_model_error_mid_turn_fails_and_changes_nothing(primed, tmp_path):
    before = primed.latest_checkpoint(S)
    prepared, attempt, _ = run(primed, tmp_path, tool("read", path="mind.md"), ModelError("503"))
    assert attempt.outcome == "failed" and "503" in attempt.error
    assert_nothing_changed(primed, before, prepared)


def test_length_stop_fails_the_turn(primed, tmp_path):
    _, attempt, _ = run(primed, tmp_path, Reply("<checkpoint>\n# 6. Now", stop_reason="length"))
    assert attempt.outcome == "failed"


def test_one_repair_names_every_problem(primed, tmp_path):
    both = edit("mind.md", ENTRY, "")
    _, attempt, model = run(primed, tmp_path, both, Reply("no block here"), final())
    repair = model.requests[2].messages[-1].content
    assert "no <checkpoint> block" in repair and "Mission entry" in repair
    assert repair.count("<context-checkpoint-request>") == 1
    assert attempt.repair_ran and len(attempt.problems) >= 2


RENAMED_NOW = (
    "<checkpoint>\n# Now\n## Where we are\nMoving services/svc3/db.py to Postgres 16.\n"
    "## Done so far\n- svc0 to svc2 moved\n## Next\n"
    '- Continue with the queue, as the user asked: "one pull request per service"\n'
    "## References\n- `services/svc3/db.py`\n</checkpoint>"
)


def test_a_usable_now_under_its_own_headings_is_accepted_and_the_template_named(primed, tmp_path):
    renamed = Reply(RENAMED_NOW)
    prepared, attempt, model = run(primed, tmp_path, renamed, renamed)
    assert attempt.outcome == "accepted" and prepared.checkpointed
    assert "# 6. Now" in model.requests[1].messages[-1].content
    assert primed.latest_checkpoint(S).now == RENAMED_NOW.split("\n", 1)[1].rsplit("\n", 1)[0]


def test_a_mind_that_lost_its_structure_keeps_the_previous_sections_and_the_now_counts(
    primed, tmp_path
):
    before = primed.latest_checkpoint(S).mind
    prose = edit("mind.md", "## Mission", "Our mission, in prose.\n## Mission\n## Mission")
    _, attempt, _ = run(primed, tmp_path, prose, Reply(RENAMED_NOW), Reply(RENAMED_NOW))
    stored = mind.parse(primed.latest_checkpoint(S).mind)
    assert attempt.outcome == "accepted" and attempt.fallbacks[0] == "mind_salvaged"
    assert stored.problems == [] and mind.lost_missions(before, stored) == []


@pytest.mark.parametrize(
    "answer",
    [
        Reply("Done."),
        Reply("<checkpoint>\ntoo short\n</checkpoint>"),
        Reply("", stop_reason="length"),
    ],
)
def test_a_repair_answered_without_a_usable_now_keeps_the_first_replys_now(
    primed, tmp_path, answer
):
    prepared, attempt, _ = run(primed, tmp_path, Reply(RENAMED_NOW), answer)
    assert attempt.outcome == "accepted" and prepared.checkpointed and attempt.repair_ran
    assert "now_of_first_reply" in attempt.fallbacks
    assert primed.latest_checkpoint(S).now.startswith("# Now\n## Where we are")


def test_a_model_error_during_the_repair_keeps_the_first_replys_now(primed, tmp_path):
    _, attempt, _ = run(primed, tmp_path, Reply(RENAMED_NOW), ModelError("server gone"))
    assert attempt.outcome == "accepted" and "now_of_first_reply" in attempt.fallbacks


PASTED_LOG = "billing-worker[4123]: INFO batch committed rows=5000 lag=12ms\n" * 26


def test_a_ticked_constraint_outlives_a_memo_edit_and_a_flood_of_pasted_logs(record, tmp_path):
    """The model ticked the constraint before; memo.md then changed beyond its boxes, and
    every candidate (twelve pasted logs among them) was kept: the logs give way, not it."""
    opening(record)
    work(record, 40)
    Engine(record, Consolidator(), LIMITS).prepare(S, SYSTEM)
    assert any(m.seq == 2 and m.ticked for m in record.latest_checkpoint(S).memo)
    for _ in range(12):
        record_user(record, S, PASTED_LOG)
    work(record, 12, start=40)
    tamper = edit("memo.md", "Never push", "Always push")
    model = ScriptedModel([tamper, final(), final()])
    attempt = Engine(record, model, LIMITS).checkpoint_now(S, SYSTEM)
    assert attempt.outcome == "accepted"
    assert attempt.fallbacks == ("memo_edited_kept_all", "memo_over_budget_shortened")
    shown = recollection(load_view(record, S), compute(LIMITS))
    assert f'<user-message number="2">\n{CONSTRAINT}\n</user-message>' in shown
    assert PASTED_LOG not in shown
