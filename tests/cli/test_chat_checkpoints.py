"""`vybe chat`'s checkpoints against real models' habits, on the OpenAI and Anthropic wires.

Each test drives `vybe chat --once` turn after turn, as a script would, against a fake server
whose model works in the shape of a real session (five reads of 1,600-character files per
typed message, then a short answer) and answers checkpoint turns as a consolidator of the zoo
(tests/context/zoo.py) does.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.cli.test_chat import run_chat
from tests.context import zoo
from tests.fakes.brain import from_anthropic, from_openai, serve
from tests.fakes.servers import FakeServer, Received
from vybe.agent.offline import Consolidator
from vybe.context.protocol import RECOLLECTION_OPEN, is_request
from vybe.llm.base import Reply, Request, ToolCall, Watch
from vybe.llm.scripted import usage_of

SESSION = "billing"
READS = 5
PART = "def migrate(table):\n    return copy(table, target)\n" * 32  # 1,600 characters
KEY = "VYBE_TEST_FAKE_KEY"


class Worker:
    """A model at work: each typed message gets READS reads, then a short answer; a
    checkpoint turn goes to its consolidator."""

    def __init__(self, consolidator: Consolidator) -> None:
        self.consolidator = consolidator

    def complete(self, request: Request, watch: Watch | None = None) -> Reply:
        if any(m.role == "user" and is_request(m.content) for m in request.messages):
            return self.consolidator.complete(request, watch)
        last_user = max(i for i, m in enumerate(request.messages) if m.role == "user")
        done = sum(1 for m in request.messages[last_user:] if m.role == "tool")
        if done < READS:
            call = ToolCall(f"r{len(request.messages)}", "read", {"path": f"part{done}.py"})
            return Reply("", (call,), "tool_use", usage_of(request, ""))
        return Reply("Batch done.", usage=usage_of(request, "Batch done."))


class Chat:
    """One session of `vybe chat --once` runs over a fake server on one wire."""

    def __init__(self, vybe, folder, wire: str, consolidator: Consolidator) -> None:
        self.vybe, self.folder, self.wire = vybe, folder, wire
        for number in range(READS):
            (folder / f"part{number}.py").write_text(PART)
        self.server = FakeServer(serve(Worker(consolidator), wire))
        vybe.env[KEY] = "fake-key"

    def __enter__(self) -> Chat:
        self.server.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.__exit__(*exc)

    def flags(self) -> list[str]:
        url = self.server.url + ("/v1" if self.wire == "openai" else "")
        wire = ["--provider", self.wire, "--base-url", url, "--api-key-env", KEY]
        return [*wire, "--model", "fake", "--window", "32000", "--max-output", "4000"]

    def say(self, text: str) -> dict:
        done = run_chat(self.vybe, self.folder, "--once", text, "--session", SESSION, *self.flags())
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)["data"]

    def until_checkpoint(self, texts) -> None:
        """Says each text in turn until one of the runs took a checkpoint."""
        for text in texts:
            if self.say(text)["checkpoints"]:
                return
        raise AssertionError("no checkpoint was taken")

    def attempts(self) -> list[dict]:
        return self.vybe.ok("session", "show", SESSION)["attempts"]

    def conversation(self) -> list[Request]:
        """The conversation requests the server was sent, as neutral requests, in order."""
        parse = from_openai if self.wire == "openai" else from_anthropic
        requests = [parse(r.body) for r in self.server.posts if not _checkpoint_turn(r)]
        return [r for r in requests if r.messages]


def _checkpoint_turn(received: Received) -> bool:
    return "<context-checkpoint-request>" in json.dumps(received.body)


def recollections(requests: list[Request]) -> list[str]:
    first = [r.messages[0].content for r in requests]
    return [text for text in first if text.startswith(RECOLLECTION_OPEN)]


def framed(text: str, recollection: str) -> bool:
    """``text`` is among the user's words of ``recollection``, whole, in its own frame."""
    return (
        re.search(f'<user-message number="\\d+">\n{re.escape(text)}\n</user-message>', recollection)
        is not None
    )


WIRES = pytest.mark.parametrize("wire", ["openai", "anthropic"])


@WIRES
def test_a_now_under_its_own_headings_whose_repair_gets_done_is_the_checkpoint(
    vybe, tmp_path, wire
):
    with Chat(vybe, tmp_path, wire, zoo.RepairDone()) as chat:
        chat.until_checkpoint([zoo.MISSION] + ["continue"] * 30)
        chat.say("continue")
    attempt = chat.attempts()[0]
    assert attempt["outcome"] == "accepted" and attempt["repair_ran"]
    assert "now_of_first_reply" in attempt["fallbacks"]
    assert any("the now lacks the heading lines" in p for p in attempt["problems"])
    recollection = recollections(chat.conversation())[-1]
    assert "# Now\n## Where we are" in recollection
    assert "## Mission\n- " + zoo.MISSION in recollection


SQUEEZED = "memo_over_budget_shortened"


@WIRES
def test_a_ticked_constraint_outlives_a_tampered_memo_and_a_flood_verbatim(vybe, tmp_path, wire):
    """Ticked at the first checkpoint; from the second on memo.md is tampered with (every
    candidate kept) while the user pastes logs, until the kept messages are over budget."""
    with Chat(vybe, tmp_path, wire, zoo.TamperFlood(obedient=1)) as chat:
        chat.until_checkpoint([zoo.MISSION, zoo.CONSTRAINT] + ["continue"] * 30)
        logs = (zoo.pasted_log(n) for n in range(200))
        while len(chat.attempts()) < 6 and SQUEEZED not in chat.attempts()[-1]["fallbacks"]:
            chat.until_checkpoint(logs)
        chat.say("continue")
    first, *tampered = chat.attempts()
    assert first["outcome"] == "accepted" and not first["fallbacks"]
    assert all(a["outcome"] == "accepted" for a in tampered)
    assert all("memo_edited_kept_all" in a["fallbacks"] for a in tampered)
    assert SQUEEZED in tampered[-1]["fallbacks"]
    shown = recollections(chat.conversation())
    assert len({text.split("\n", 3)[2] for text in shown}) == len(tampered) + 1  # each receipt
    assert all(framed(zoo.CONSTRAINT, text) for text in shown)
    assert not framed(zoo.pasted_log(0), shown[-1])
