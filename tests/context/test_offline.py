"""The scripted models: a script per request, an obedient and a sloppy consolidator."""

import pytest

from tests.context.zoo import SloppyConsolidator
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
