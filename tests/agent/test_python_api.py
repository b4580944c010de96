"""The public Python API: the exact export list, and the agent loop of docs/python-api.md run
as written against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import vybe
from tests.fakes.servers import FakeServer, openai_reply
from vybe.context.labels import Dispatch
from vybe.errors import InvalidInput
from vybe.llm.base import Reply, ToolCall
from vybe.llm.scripted import ScriptedModel

DOC = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"


def test_every_name_in_all_resolves_and_nothing_else_does():
    assert "__version__" in vybe.__all__ and len(set(vybe.__all__)) == len(vybe.__all__)
    assert all(getattr(vybe, name) is not None for name in vybe.__all__)
    assert set(dir(vybe)) >= set(vybe.__all__)
    with pytest.raises(AttributeError):
        vybe.Engine  # noqa: B018


def test_the_documented_loop_needs_nothing_but_vybe_and_its_exports():
    loop = the_loop()
    imported = re.findall(r"^(?:from|import) (\S+)", loop, re.MULTILINE)
    assert [name for name in imported if name.startswith("vybe")] == ["vybe"]
    assert set(re.findall(r"\bvybe\.(\w+)", loop)) <= set(vybe.__all__)


def test_importing_vybe_imports_none_of_its_modules():
    code = "import sys, vybe; print(sorted(m for m in sys.modules if m.startswith('vybe')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['vybe']"


def the_loop() -> str:
    return re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)[1]


def test_the_documented_loop_runs_as_written(tmp_path, monkeypatch, capsys):
    (tmp_path / "README.md").write_text("vybe keeps agents on track.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    answers = [
        openai_reply("", [("c1", "read", {"path": "README.md"})], finish="tool_calls"),
        openai_reply("vybe keeps agents on track, in one line."),
    ]
    with FakeServer(lambda received: answers.pop(0)) as server:
        exec(the_loop().replace("http://127.0.0.1:11434/v1", server.url + "/v1"), {})
    assert capsys.readouterr().out.strip() == "vybe keeps agents on track, in one line."
    assert len(the_loop().strip().splitlines()) <= 18 and not answers
    assert (tmp_path / "agent.db").is_file()


def a_session(*steps):
    return vybe.Session(ScriptedModel(list(steps)), vybe.ModelLimits(window=32_000))


def test_prepare_refuses_while_a_tool_call_has_no_result():
    session = a_session()
    session.user("read it")
    session.prepare()
    session.reply(Reply("", (ToolCall("c1", "read", {"path": "a"}),), "tool_use"))
    with pytest.raises(InvalidInput, match="c1"):
        session.prepare()
    session.tool_result(ToolCall("c1", "read", {"path": "a"}), "text of a")
    assert session.prepare().messages[-1].content == "text of a"


def test_a_result_for_a_call_not_waiting_for_one_is_refused():
    session = a_session()
    session.user("hello")
    with pytest.raises(InvalidInput):
        session.tool_result(ToolCall("nope", "read", {}), "x")


def test_a_reply_needs_a_prepared_request_and_records_its_estimate():
    session = a_session()
    session.user("hello")
    with pytest.raises(InvalidInput):
        session.reply(Reply("hi"))
    request = session.prepare()
    session.reply(Reply("hi", usage=vybe.Usage(input_tokens=900)))
    row = session.record.messages(session.id)[-1]
    assert row.data["request"]["tokens"] > 0 and request.messages[-1].content == "hello"
    assert not session.awaits_model


def test_the_reported_usage_calibrates_the_next_estimate():
    session = a_session()
    session.user("hello")
    session.prepare()
    estimate = session.last.tokens
    session.reply(Reply("hi", usage=vybe.Usage(input_tokens=estimate + 5_000)))
    session.user("again")
    session.prepare()
    assert session.last.tokens >= estimate + 5_000


def test_a_harness_input_is_labelled_and_never_the_users():
    session = a_session()
    session.harness(Dispatch("watch", "w1", "nightly"), "The user asked you to deploy.")
    row = session.record.messages(session.id)[-1]
    assert row.type == "harness" and row.text.startswith('[Harness: Watch w1 "nightly"]')


def test_a_session_on_a_path_continues_where_the_last_one_stopped(tmp_path):
    path = tmp_path / "agent.db"
    with vybe.Session(ScriptedModel([]), record=path, session_id="s1") as first:
        first.user("hello")
        first.prepare()
        first.reply(Reply("", (ToolCall("c1", "read", {"path": "a"}),), "tool_use"))
    with vybe.Session(ScriptedModel([]), record=path, session_id="s1") as again:
        assert [c.id for c in again.pending_calls] == ["c1"] and again.awaits_model


def test_context_exhausted_is_raised_clearly():
    session = a_session()
    session.user("x" * 200_000)
    with pytest.raises(vybe.ContextExhausted) as raised:
        session.prepare()
    assert raised.value.code == "CONTEXT_EXHAUSTED"
