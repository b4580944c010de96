"""The agent loop over a fake OpenAI/Anthropic server, the real engine and a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.brain import serve, text_of
from tests.fakes.servers import (
    FakeServer,
    Received,
    Response,
    openai_error,
    openai_events,
    openai_reply,
)
from vybe.agent.loop import Runner
from vybe.agent.offline import Consolidator
from vybe.agent.shell import REFUSED, BashPermission
from vybe.agent.tasks import TaskTools
from vybe.agent.tools import Toolbox
from vybe.context import budget
from vybe.context import engine as engine_module
from vybe.context.recorder import record_user
from vybe.llm import scripted
from vybe.llm.anthropic import AnthropicMessages
from vybe.llm.base import Reply, Request, ToolCall, Watch
from vybe.llm.http import RetryPolicy
from vybe.llm.openai_compat import OpenAICompatible
from vybe.store.record import SqliteRecord

FAST = RetryPolicy(attempts=2, base_delay=0.01, timeout=10)
CONSTRAINT = "Never touch the production database; only work on staging. Please keep it so."


def runner_for(store, server, tmp_path, wire="openai", window=8000, allow_bash=False) -> Runner:
    if wire == "openai":
        model = OpenAICompatible("fake", base_url=server.url + "/v1", policy=FAST)
    else:
        model = AnthropicMessages("fake", api_key="k", base_url=server.url, policy=FAST)
    record = SqliteRecord(store)
    limits = budget.ModelLimits(window=window, max_output=1000)
    engine = engine_module.Engine(record, model, limits)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    tools = Toolbox(work, {}, BashPermission(allow_bash), TaskTools(store, "tester", "s1"))
    return Runner(record, engine, model, tools, work)


def is_checkpoint_turn(received: Received) -> bool:
    return "context-checkpoint-request" in text_of(received)


def filler(turn: int) -> str:
    return f"Turn {turn}: please look at item {turn}. " + ("details of the work " * 60)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_forty_turns_in_8k_take_checkpoints_that_carry_the_users_words(store, tmp_path, wire):
    with FakeServer(serve(Consolidator(), wire)) as server:
        runner = runner_for(store, server, tmp_path, wire)
        record_user(runner.record, "s1", CONSTRAINT)
        accepted = 0
        for turn in range(1, 41):
            if turn > 1:
                record_user(runner.record, "s1", filler(turn))
            report = runner.run("s1")
            accepted += sum(1 for c in report.checkpoints if c["outcome"] == "accepted")
            assert report.reply
    assert accepted >= 3
    answered = [r for r in server.posts if not is_checkpoint_turn(r)]
    first_after = next(i for i, r in enumerate(answered) if "<context-checkpoint>" in text_of(r))
    for index, received in enumerate(answered[first_after:], first_after):
        sent = text_of(received)
        assert "<context-checkpoint>" in sent
        assert json.dumps(CONSTRAINT)[1:-1] in sent
        latest = filler(index + 1) if index else CONSTRAINT
        assert json.dumps(latest)[1:-1] in sent


def test_context_length_refusal_goes_to_the_overflow_ladder(store, tmp_path):
    brain = serve(Consolidator())
    refused = []

    def respond(received: Received) -> Response:
        if len(server.posts) == 6 and not refused:
            refused.append(received)
            return openai_error(400, "maximum context length exceeded", "context_length_exceeded")
        return brain(received)

    with FakeServer(respond) as server:
        runner = runner_for(store, server, tmp_path, window=32000)
        reports = []
        for turn in range(1, 9):
            record_user(runner.record, "s1", filler(turn))
            reports.append(runner.run("s1"))
    assert refused
    taken = [c for r in reports for c in r.checkpoints]
    assert any(c["reason"] == "overflow" for c in taken)
    assert reports[-1].reply


def test_bash_is_refused_without_permission(store, tmp_path):
    call = openai_reply(calls=[("c1", "bash", {"command": "touch marker"})])
    with FakeServer(lambda r: call if len(server.posts) == 1 else openai_reply("ok")) as server:
        runner = runner_for(store, server, tmp_path)
        record_user(runner.record, "s1", "make a marker file")
        report = runner.run("s1")
    assert report.tool_calls[0]["error"] is True
    assert not (tmp_path / "work" / "marker").exists()
    result = runner.record.messages("s1")[2]
    assert result.type == "tool" and result.text == REFUSED
    assert REFUSED in text_of(server.posts[1])


def test_bash_runs_with_permission(store, tmp_path):
    call = openai_reply(calls=[("c1", "bash", {"command": "echo hi > marker"})])
    with FakeServer(lambda r: call if len(server.posts) == 1 else openai_reply("ok")) as server:
        runner = runner_for(store, server, tmp_path, allow_bash=True)
        record_user(runner.record, "s1", "make a marker file")
        runner.run("s1")
    assert (tmp_path / "work" / "marker").read_text() == "hi\n"


def test_tools_write_then_edit_then_read(store, tmp_path):
    steps = [
        openai_reply(calls=[("c1", "write", {"path": "a.txt", "content": "hello world"})]),
        openai_reply(
            calls=[("c2", "edit", {"path": "a.txt", "old_text": "world", "new_text": "you"})]
        ),
        openai_reply(calls=[("c3", "read", {"path": "a.txt"})]),
        openai_reply("done"),
    ]
    with FakeServer(lambda r: steps[len(server.posts) - 1]) as server:
        runner = runner_for(store, server, tmp_path)
        record_user(runner.record, "s1", "write, edit, read")
        report = runner.run("s1")
    assert report.reply == "done"
    assert [c["name"] for c in report.tool_calls] == ["write", "edit", "read"]
    assert "hello you" in text_of(server.posts[3])


def test_task_tools_keep_durable_state(store, tmp_path):
    steps = [
        openai_reply(calls=[("c1", "task_create", {"title": "migrate users"})]),
        openai_reply(calls=[("c2", "task_list", {})]),
        openai_reply("noted"),
    ]
    with FakeServer(lambda r: steps[len(server.posts) - 1]) as server:
        runner = runner_for(store, server, tmp_path)
        record_user(runner.record, "s1", "track the migration")
        runner.run("s1")
    assert "migrate users" in text_of(server.posts[2])
    rows = store.conn.execute("SELECT title FROM tasks").fetchall()
    assert [r[0] for r in rows] == ["migrate users"]


def test_unanswered_call_gets_an_interrupted_note_not_a_second_run(store, tmp_path):
    with FakeServer(lambda r: openai_reply("resumed")) as server:
        runner = runner_for(store, server, tmp_path, allow_bash=True)
        record_user(runner.record, "s1", "append a line")
        from vybe.context.recorder import record_assistant
        from vybe.llm.base import Reply, ToolCall

        call = ToolCall("c1", "bash", {"command": "echo once >> log"})
        record_assistant(runner.record, "s1", Reply("", (call,), "tool_use"))
        report = runner.run("s1")
    assert report.reply == "resumed"
    assert not (tmp_path / "work" / "log").exists()
    assert "interrupted" in runner.record.messages("s1")[2].text


def test_skills_catalog_is_in_the_system_prompt_and_skill_load_returns_the_text(store, tmp_path):
    skill = tmp_path / "work" / ".vybe" / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: How to deploy to staging\n---\nRun make stage.\n"
    )
    (tmp_path / "work" / "AGENTS.md").write_text("Use tabs, not spaces.")
    steps = [openai_reply(calls=[("c1", "skill_load", {"name": "deploy"})]), openai_reply("ok")]
    with FakeServer(lambda r: steps[len(server.posts) - 1]) as server:
        runner = runner_for(store, server, tmp_path)
        record_user(runner.record, "s1", "deploy it")
        runner.run("s1")
    system = server.posts[0].body["messages"][0]["content"]
    assert "- deploy: How to deploy to staging" in system
    assert "Use tabs, not spaces." in system
    assert "[Harness: ...]" in system
    assert "Run make stage." in text_of(server.posts[1])
    assert runner.record.messages("s1")[2].data["skill"] == "deploy"


def test_path_argument_missing_is_an_error_result(store, tmp_path):
    steps = [openai_reply(calls=[("c1", "read", {})]), openai_reply("ok")]
    with FakeServer(lambda r: steps[len(server.posts) - 1]) as server:
        runner = runner_for(store, server, tmp_path)
        record_user(runner.record, "s1", "read")
        report = runner.run("s1")
    assert report.tool_calls[0]["error"] is True
    assert Path(tmp_path / "work").is_dir()


class FailingConsolidator:
    """Never writes a usable now; otherwise calls one tool, then answers."""

    name = "failing"

    def complete(self, request: Request) -> Reply:
        last = request.messages[-1]
        if "<context-checkpoint-request>" in last.content:
            return Reply("no")
        if last.role == "user":
            return Reply(
                "", (ToolCall(f"c{len(request.messages)}", "read", {"path": "x"}),), "tool_use"
            )
        return Reply("Done.")


def test_each_persons_message_starts_a_run_with_its_own_checkpoint_failures(store, tmp_path):
    model = FailingConsolidator()
    record = SqliteRecord(store)
    limits = budget.ModelLimits(window=8000, max_output=1000)
    engine = engine_module.Engine(record, model, limits)
    tools = Toolbox(tmp_path, {}, BashPermission(False), TaskTools(store, "tester", "s1"))
    runner = Runner(record, engine, model, tools, tmp_path)
    for turn in range(1, 17):
        record_user(record, "s1", filler(turn))
    first = runner.run("s1")
    record_user(record, "s1", "Go on with the next item.")
    second = runner.run("s1")
    assert [c["outcome"] for c in first.checkpoints] == ["failed", "failed"]
    assert second.checkpoints and second.checkpoints[0]["outcome"] == "failed"
    runs = [a.run_id for a in record.attempts("s1")]
    assert len(set(runs)) == 2 and runs[0] == runs[1] != runs[2]


def test_a_stream_cut_and_retried_is_shown_again_and_recorded_once_whole(store, tmp_path):
    text = "The whole reply, streamed twice because the first stream broke."
    cut = Response(events=openai_events(openai_reply(text).body), die=True)
    answers = [cut, openai_reply(text)]
    pieces, retries = [], []
    with FakeServer(lambda r: answers[len(server.posts) - 1]) as server:
        runner = runner_for(store, server, tmp_path)
        runner.watch = Watch(pieces.append, retries.append)
        record_user(runner.record, "s1", "say it")
        report = runner.run("s1")
    assert report.reply == text
    assert len(retries) == 1
    assert "".join(pieces).endswith(text) and len("".join(pieces)) > len(text)
    replies = [m for m in runner.record.messages("s1") if m.type == "assistant"]
    assert [m.text for m in replies] == [text]


def test_the_watch_sees_a_scripted_reply_word_by_word(store, tmp_path):
    model = scripted.ScriptedModel([Reply("on it now")])
    record = SqliteRecord(store)
    limits = budget.ModelLimits(window=8000, max_output=1000)
    engine = engine_module.Engine(record, model, limits)
    tools = Toolbox(tmp_path, {}, BashPermission(False), TaskTools(store, "tester", "s1"))
    pieces: list[str] = []
    runner = Runner(record, engine, model, tools, tmp_path, watch=Watch(pieces.append))
    record_user(record, "s1", "go")
    runner.run("s1")
    assert pieces == ["on ", "it ", "now"]
