"""The scripted models: a script per request, an obedient and a sloppy consolidator."""

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.context.zoo import SloppyConsolidator
from vybe.agent import offline
from vybe.agent.offline import Consolidator
from vybe.errors import ModelError
from vybe.llm.base import Message, Reply, Request, Watch
from vybe.llm.scripted import ScriptedModel

MIND = (
    "# 1. Where I stand\n## For whom and why\n(none yet: for whom and why)\n## What I own\n"
    "(none yet: what I own)\n## Agreements\n(none yet: agreements)\n\n# 2. Goals\n## Mission\n"
    "(none yet: mission)\n## Workstreams\n(none yet: workstreams)\n\n# 3. Key decisions\n"
    "(none yet: key decisions)\n\n# 4. Lessons\n(none yet: lessons)\n"
)
MEMO = "- [ ] (#1) Ship the importer by Friday\n- [ ] (#2) Never touch prod\n- [ ] (#4) continue\n"
CONVERSATION = (
    Message("user", "Ship the importer by Friday"),
    Message("user", "Never touch prod"),
    Message("user", '[Harness: Watch w_1 "ci"]\nThe user asked: deploy now'),
    Message("user", "continue"),
    Message("assistant", "Reading src/vybe/importer.py for task_1a2b3c."),
)


def turn(model, *later):
    request = Message(
        "user", "<context-checkpoint-request>\nconsolidate\n</context-checkpoint-request>"
    )
    return model.complete(Request("sys", (*CONVERSATION, request, *later)))


def test_script_replies_in_order_and_records_requests():
    model = ScriptedModel([Reply("a"), Reply("b")])
    assert [model.complete(Request("s", ())).text for _ in range(2)] == ["a", "b"]
    assert len(model.requests) == 2


def test_script_raises_a_scripted_error_and_runs_out_with_model_error():
    model = ScriptedModel([ModelError("boom")])
    with pytest.raises(ModelError, match="boom"):
        model.complete(Request("s", ()))
    with pytest.raises(ModelError, match="no reply left"):
        model.complete(Request("s", ()))


def test_script_step_may_be_a_function_of_the_request():
    model = ScriptedModel([lambda r: Reply(str(len(r.messages)))])
    assert model.complete(Request("s", (Message("user", "x"),))).text == "1"


def test_consolidator_reads_both_files_first():
    reply = turn(Consolidator())
    assert [(c.name, c.arguments["path"]) for c in reply.tool_calls] == [
        ("read", "mind.md"),
        ("read", "memo.md"),
    ]


def reads(reply):
    return (
        Message("assistant", "", reply.tool_calls),
        Message("tool", MIND, tool_call_id="call_0"),
        Message("tool", MEMO, tool_call_id="call_1"),
    )


def test_consolidator_adds_the_first_user_message_as_mission_and_ticks_directives():
    model = Consolidator()
    edits = turn(model, *reads(turn(model))).tool_calls
    new_texts = [c.arguments["new_text"] for c in edits]
    assert any("- Ship the importer by Friday" in t for t in new_texts)
    ticked = [c.arguments["old_text"] for c in edits if c.arguments["path"] == "memo.md"]
    assert ticked == ["- [ ] (#2)"]


def test_consolidator_writes_a_now_with_exact_references_from_the_conversation():
    model = Consolidator()
    first = turn(model)
    second = turn(model, *reads(first))
    final = turn(model, *reads(first), Message("assistant", "", second.tool_calls))
    assert final.text.startswith("<checkpoint>\n# 6. Now") and final.text.endswith("</checkpoint>")
    assert "`src/vybe/importer.py`" in final.text and "`task_1a2b3c`" in final.text


def test_consolidator_answers_ordinary_requests_with_text():
    assert Consolidator().complete(Request("s", (Message("user", "hi"),))).text == "Done."


def test_sloppy_consolidator_rewrites_the_mission_and_takes_harness_text_for_the_user():
    model = SloppyConsolidator()
    edits = turn(model, *reads(turn(model))).tool_calls
    new_texts = " ".join(c.arguments["new_text"] for c in edits)
    assert "The user asked: The user asked: deploy now" in new_texts
    assert "- ship the importer by friday" not in new_texts


def test_scripted_model_streams_a_reply_word_by_word_to_the_watch():
    pieces: list[str] = []
    model = ScriptedModel([Reply("three words here")])
    reply = model.complete(Request("sys", (Message("user", "hi"),)), Watch(pieces.append))
    assert pieces == ["three ", "words ", "here"]
    assert reply.text == "three words here"


# The references the consolidator lists are the matches of this one pattern, leftmost first;
# offline.references_in finds them without its cost on long runs.
ONE_PATTERN = re.compile(r"(?<![\w/])(?:[\w.-]+/)+[\w.-]+\.\w+|\b[a-z]+_[0-9a-f]{4,}\b")
PIECES = [
    *("job_7c41e9", "run_5a9f02", "x_", "deadbeef", "f00d", "src", "py", "a", "Z", "é", "_"),
    *("/", "//", ".", "..", ".py", "-", " ", "\n", "(", "`"),
    *("a." * 50, "-" * 90, "src/" * 30, "b-c." * 25 + "/d.py", "x" * 120),
]


def matches(text: str) -> list[str]:
    return [m.group(0) for m in ONE_PATTERN.finditer(text)]


@settings(max_examples=500)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_references_are_the_matches_of_the_one_pattern_long_runs_or_not(text):
    assert offline.references_in(text) == matches(text)


@settings(max_examples=500)
@given(st.text(alphabet="ab_f07.-/é", min_size=1, max_size=60))
def test_a_run_read_in_linear_time_has_the_matches_of_the_one_pattern(text):
    assert offline.run_references(text, 0, len(text)) == matches(text)


@pytest.mark.parametrize("unit", ["a.", "ab-", "-", "v1.2-rc/"])
def test_references_cost_no_more_than_a_pass_over_a_long_run(unit):
    """The one pattern takes about a minute over 200,000 characters of these; a pass, ms."""
    text = "see " + unit * (200_000 // len(unit)) + " and services/billing/migrate.py"
    started = time.process_time()
    found = offline.references_in(text)
    assert time.process_time() - started < 2.0
    assert found[-1] == "services/billing/migrate.py"
