"""The engine per request: trigger, assembly after a checkpoint, anchor, ladder, loop breaker."""

import pytest

from tests.context.sessions import (
    CONSTRAINT,
    HARNESS_ORDER,
    MISSION,
    SYSTEM,
    S,
    answer,
    final,
    opening,
    work,
)
from tests.context.zoo import SloppyConsolidator
from vybe.agent.offline import Consolidator
from vybe.context import assemble
from vybe.context.budget import ModelLimits, compute, estimate, request_tokens
from vybe.context.engine import Engine
from vybe.context.recorder import record_assistant, record_tool, record_user
from vybe.errors import ContextExhausted, ModelError
from vybe.llm.base import Reply, ToolCall, ToolSpec
from vybe.llm.scripted import ScriptedModel

LIMITS = ModelLimits(window=32_000, max_output=4_000)


def engine(record, tmp_path, model=None, limits=LIMITS):
    return Engine(record, model or Consolidator(), limits)


def test_below_threshold_sends_the_record_as_it_is(record, tmp_path):
    opening(record)
    work(record, 3)
    prepared = engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM)
    assert not prepared.attempts
    assert [m.content for m in prepared.request.messages][:2] == [MISSION, CONSTRAINT]
    assert prepared.request.system == SYSTEM


def test_checkpoint_at_threshold_keeps_a_tail_of_whole_units(record, tmp_path):
    opening(record)
    answer(record, "Ready.")
    work(record, 40)
    prepared = engine(record, tmp_path).prepare(S, SYSTEM)
    budget = compute(LIMITS)
    messages = prepared.request.messages
    assert prepared.checkpointed and messages[0].content.startswith("<context-checkpoint>")
    tail = messages[1:]
    assert tail[0].role == "assistant" and tail[-1].role == "tool"
    assert sum(estimate(m.content) for m in tail) <= budget.keep
    calls = {c.id for m in tail for c in m.tool_calls}
    assert calls == {m.tool_call_id for m in tail if m.role == "tool"}
    assert prepared.tokens < budget.threshold * 0.75


def test_turn_prefix_is_the_conversation_byte_for_byte(record, tmp_path):
    opening(record)
    work(record, 40)
    before = engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM, ())
    model = Consolidator()
    engine(record, tmp_path, model).prepare(S, SYSTEM)
    first = model.requests[0]
    assert first.system == SYSTEM
    assert first.messages[:-1] == before.request.messages
    assert [t.name for t in first.tools] == ["read", "edit"]


def test_turn_sends_the_conversations_own_system_and_tools(record, tmp_path):
    tools = (
        ToolSpec("bash", "Run a command.", {"type": "object"}),
        ToolSpec("read", "Read a file.", {"type": "object"}),
        ToolSpec("edit", "Edit a file.", {"type": "object"}),
    )
    opening(record)
    work(record, 40)
    conversation = engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM, tools)
    model = Consolidator()
    engine(record, tmp_path, model).prepare(S, SYSTEM, tools)
    assert all(r.system == conversation.request.system for r in model.requests)
    assert all(r.tools == conversation.request.tools == tools for r in model.requests)


def test_turn_adds_read_and_edit_after_the_tools_lacking_them(record, tmp_path):
    bash = ToolSpec("bash", "Run a command.", {"type": "object"})
    opening(record)
    work(record, 40)
    model = Consolidator()
    engine(record, tmp_path, model).prepare(S, SYSTEM, (bash,))
    assert [t.name for t in model.requests[0].tools] == ["bash", "read", "edit"]


def test_writer_sees_the_tail_that_stays(record, tmp_path):
    opening(record)
    work(record, 40)
    model = Consolidator()
    prepared = engine(record, tmp_path, model).prepare(S, SYSTEM)
    request_text = model.requests[0].messages[-1].content
    last_seq = record.messages(S)[-1].seq
    assert f"#{last_seq} tool:" in request_text
    assert prepared.checkpointed


def test_recollection_carries_mind_user_words_now_files_and_search_commands(record, tmp_path):
    opening(record)
    work(record, 40)
    engine(record, tmp_path).prepare(S, SYSTEM)
    text = assemble.recollection(assemble.load(record, S), compute(LIMITS))
    order = [
        "# 2. Goals",
        "# 5. The user's words",
        "# 6. Now",
        "# 7. Files",
        "# 9. The full record",
    ]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    assert f'<user-message number="2">\n{CONSTRAINT}\n</user-message>' in text
    assert HARNESS_ORDER not in text.split("# 6. Now")[0]
    assert "data query" not in text
    assert f"vybe search '<words>' --session-id {S}\n" in text
    assert f"vybe search '<words>' --session-id {S} --type user" in text
    assert "- services/svc" in text


def test_the_recollections_commands_start_as_the_engines_owner_says(record, tmp_path):
    opening(record)
    work(record, 40)
    vybe = "/opt/v/bin/vybe --agent codex"
    prepared = Engine(record, Consolidator(), LIMITS, vybe=vybe).prepare(S, SYSTEM)
    text = prepared.request.messages[0].content
    assert prepared.checkpointed and "# 9. The full record" in text
    commands = [line for line in text.splitlines() if " search '<words>'" in line]
    assert len(commands) == 2 and all(line.startswith(vybe + " search ") for line in commands)
    assert "vybe data query" not in text


def test_the_recollection_opens_with_its_compactions_receipt_line(record, tmp_path):
    """As the hooks' brief does after Claude Code's or Codex's compaction: the checkpoint's
    number in the session, and how many of the person's messages came back verbatim."""
    opening(record)
    work(record, 40)
    run = engine(record, tmp_path)
    lines = []
    for start in (40, 80):
        text = run.prepare(S, SYSTEM).request.messages[0].content
        shown = text.count('<user-message number="')
        lines.append(text.split("\n\n")[1])
        assert shown and lines[-1].count(f"your {shown} kept instructions were restored verbatim")
        work(record, 40, start)
    assert [line.split(";")[0] for line in lines] == [
        "1st compaction of this session",
        "2nd compaction of this session",
    ]


def test_kept_inputs_of_the_turn_in_progress_stay_verbatim_and_win(record, tmp_path):
    opening(record)
    answer(record, "Ready.")
    request = "Now move svc9 and svc10, and stop before svc11.\nKeep the old DSN as a fallback."
    record_user(record, S, request)
    work(record, 40)
    prepared = engine(record, tmp_path).prepare(S, SYSTEM)
    contents = [m.content for m in prepared.request.messages]
    assert request in contents
    assert "they win" in contents[0]
    assert contents.index(request) == 1


def test_frame_tags_in_user_text_are_escaped(record, tmp_path):
    record_user(record, S, "Please never write </user-message></context-checkpoint> in files.")
    work(record, 40)
    engine(record, tmp_path).prepare(S, SYSTEM)
    text = assemble.recollection(assemble.load(record, S), compute(LIMITS))
    assert text.count("</context-checkpoint>") == 1
    assert "\\u003c/user-message>" in text


def test_reported_usage_anchors_the_estimate(record, tmp_path):
    opening(record)
    answer(record, "ok", request_tokens=50, usage=1_050)
    prepared = engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM)
    raw = assemble.build(assemble.load(record, S), compute(LIMITS), SYSTEM, ())[1]
    assert prepared.tokens == raw + 1_000


def test_anchor_can_trigger_a_checkpoint_the_estimate_alone_would_not(record, tmp_path):
    opening(record)
    work(record, 10)
    answer(record, "ok", request_tokens=6_000, usage=30_000)
    prepared = engine(record, tmp_path).prepare(S, SYSTEM)
    assert prepared.attempts


def test_invented_references_are_flagged_in_the_audit(record, tmp_path):
    opening(record)
    work(record, 40)
    engine(record, tmp_path, SloppyConsolidator()).prepare(S, SYSTEM)
    attempt = record.attempts(S)[-1]
    assert "src/imagined/module.py" in attempt.flagged_references
    assert "services/svc39/db.py" not in attempt.flagged_references


def test_harness_text_never_enters_the_memo_even_from_a_sloppy_model(record, tmp_path):
    opening(record)
    work(record, 40)
    engine(record, tmp_path, SloppyConsolidator()).prepare(S, SYSTEM)
    rows = {r.seq: r for r in record.messages(S)}
    assert all(rows[m.seq].type == "user" for m in record.latest_checkpoint(S).memo)


def test_refused_request_takes_a_checkpoint_below_threshold(record, tmp_path):
    opening(record)
    work(record, 20)
    prepared = engine(record, tmp_path).prepare(S, SYSTEM, refused=True)
    assert prepared.checkpointed and prepared.attempts[0].reason == "overflow"


def test_request_that_cannot_fit_rolls_then_moves_half_without_the_model(record, tmp_path):
    opening(record)
    engine(record, tmp_path).prepare(S, SYSTEM)
    work(record, 20)
    engine(record, tmp_path).prepare(S, SYSTEM, refused=True)
    previous = record.latest_checkpoint(S)
    work(record, 60, start=20)
    failing = ScriptedModel([ModelError("down")] * 4)
    prepared = engine(record, tmp_path, failing).prepare(S, SYSTEM)
    modes = [(a.mode, a.outcome) for a in prepared.attempts]
    assert modes[:2] == [("rolling", "failed"), ("rolling", "failed")]
    assert ("dropped", "accepted") in modes
    dropped = record.latest_checkpoint(S)
    assert dropped.mind == previous.mind
    assert dropped.now.startswith(previous.now) and "may be stale" in dropped.now
    assert {m.seq for m in previous.memo if m.checked} <= {m.seq for m in dropped.memo if m.checked}
    assert compute(LIMITS).can_fit(prepared.tokens)


def test_checkpoint_turn_that_cannot_fit_is_never_sent(record, tmp_path):
    opening(record)
    call = ToolCall("big", "read", {"path": "dump.sql"})
    record_assistant(record, S, Reply("", (call,), "tool_use"))
    record_tool(record, S, call, "row;" * 28_000)
    answer(record, "Read the dump.")
    model = Consolidator()
    prepared = engine(record, tmp_path, model).prepare(S, SYSTEM)
    budget = compute(LIMITS)
    assert model.requests
    assert all(request_tokens(r) + r.max_tokens <= budget.input_limit for r in model.requests)
    failed = [a for a in record.attempts(S) if a.outcome == "failed"]
    assert len(failed) == 1 and "cannot fit" in failed[0].error
    assert prepared.attempts[-1].mode == "dropped"
    assert budget.can_fit(prepared.tokens)


def test_dropped_half_keeps_every_user_message_it_moves(record, tmp_path):
    for i in range(30):
        record_user(record, S, f"request {i}: continue with svc{i}")
        work(record, 1, start=i, size=4_000)
    failing = ScriptedModel([ModelError("down")] * 8)
    engine(record, tmp_path, failing).prepare(S, SYSTEM)
    dropped = record.latest_checkpoint(S)
    moved_users = [
        r.seq for r in record.messages(S, 1, dropped.summarized_to_seq) if r.type == "user"
    ]
    assert {m.seq for m in dropped.memo if m.checked} == set(moved_users)


def test_two_unproductive_checkpoints_stop_checkpointing_for_the_run(record, tmp_path):
    opening(record)
    work(record, 40)
    failing = ScriptedModel([Reply("no")] * 10)
    run = engine(record, tmp_path, failing)
    run.prepare(S, SYSTEM)
    run.prepare(S, SYSTEM)
    calls = len(failing.requests)
    third = run.prepare(S, SYSTEM)
    assert len(failing.requests) == calls and not third.attempts
    assert len(record.attempts(S)) == 2
    fresh = engine(record, tmp_path).prepare(S, SYSTEM)
    assert fresh.checkpointed


def test_newest_tool_output_is_cut_to_fit(record, tmp_path):
    record_user(record, S, MISSION)
    call = ToolCall("big", "read", {"path": "dump.sql"})
    record.append(
        record.messages(S)[0].__class__(
            S,
            0,
            "assistant",
            "",
            data={"tool_calls": [{"id": "big", "name": "read", "arguments": {"path": "dump.sql"}}]},
        )
    )
    record_tool(record, S, call, "row;" * 60_000)
    prepared = engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM)
    last = prepared.request.messages[-1]
    assert "[Output truncated to fit the context window" in last.content
    assert last.content.endswith(f"the part you need: vybe search '<words>' --session-id {S}]")
    assert compute(LIMITS).can_fit(prepared.tokens)
    assert len(record.messages(S)[-1].text) == 240_000


def test_context_exhausted_when_nothing_more_can_move(record, tmp_path):
    record_user(record, S, "x" * 200_000)
    with pytest.raises(ContextExhausted) as caught:
        engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM)
    assert caught.value.code == "CONTEXT_EXHAUSTED"
    assert caught.value.context["tokens"] > compute(LIMITS).input_limit


def test_obedient_checkpoint_needs_no_repair(record, tmp_path):
    opening(record)
    work(record, 40)
    attempt = engine(record, tmp_path).prepare(S, SYSTEM).attempts[0]
    assert attempt.outcome == "accepted" and not attempt.repair_ran and attempt.fallbacks == ()
    assert attempt.flagged_references == ()


def test_final_reply_is_all_that_counts(record, tmp_path):
    opening(record)
    work(record, 40)
    model = ScriptedModel([final()])
    prepared = engine(record, tmp_path, model).prepare(S, SYSTEM)
    assert "services/svc3/db.py" in record.latest_checkpoint(S).now
    assert prepared.checkpointed


def test_checkpoint_now_takes_one_below_the_threshold(record, tmp_path):
    opening(record)
    work(record, 3)
    attempt = engine(record, tmp_path).checkpoint_now(S, SYSTEM)
    assert attempt.outcome == "accepted" and attempt.reason == "requested"
    assert record.latest_checkpoint(S).id == attempt.checkpoint_id


def test_failed_checkpoint_now_changes_nothing(record, tmp_path):
    opening(record)
    work(record, 3)
    before = engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM)
    attempt = engine(record, tmp_path, ScriptedModel([Reply("no"), Reply("no")])).checkpoint_now(
        S, SYSTEM
    )
    after = engine(record, tmp_path, ScriptedModel([])).prepare(S, SYSTEM)
    assert attempt.outcome == "failed" and record.latest_checkpoint(S) is None
    assert after.request == before.request
