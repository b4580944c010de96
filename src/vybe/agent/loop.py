"""The agent loop behind ``vybe chat``, on a Session: prepare -> model -> reply -> tools -> ...

Every input and reply is appended to the record before it is acted on, and the loop reads
what is owed from the record, so a run killed anywhere resumes with ``--session``: an
unanswered input is answered once, a recorded reply is never asked for again, and a call
whose result was never recorded gets a note saying so instead of running a second time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vybe.agent import skills
from vybe.agent.prompt import system_prompt
from vybe.agent.session import Session
from vybe.agent.tools import Toolbox
from vybe.context.engine import Engine
from vybe.context.record import Record
from vybe.errors import ContextExhausted
from vybe.llm.base import ContextLengthExceeded, Model, Reply, Request, ToolCall, Watch

MAX_ROUNDS = 50
MAX_REFUSALS = 4
INTERRUPTED = (
    "[This call was interrupted before its result was recorded: it may or may not have run. "
    "Check the current state before doing it again.]"
)


Listener = Callable[[str, dict[str, Any]], None]


@dataclass
class TurnReport:
    """What one run of the loop did: the final reply, the calls, the checkpoints."""

    session_id: str
    reply: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    checkpoints: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    stopped: str = "done"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Runner:
    """Runs a session's owed work to the end of the turn."""

    record: Record
    engine: Engine
    model: Model
    toolbox: Toolbox
    workdir: Path
    listen: Listener = field(default=lambda kind, payload: None)
    max_rounds: int = MAX_ROUNDS
    watch: Watch | None = None

    def run(self, session_id: str) -> TurnReport:
        """Answer what the session owes: tools left unanswered, then model rounds until done.

        One call is one run (a person's message through to the final reply): the engine's
        count of unproductive checkpoints starts again (docs/architecture.md), in chat as in
        replay.
        """
        session = Session.over(self.engine, session_id)
        session.new_run()
        report = TurnReport(session_id)
        for call in session.pending_calls:
            session.tool_result(call, INTERRUPTED, is_error=True)
        refusals = 0
        while session.awaits_model:
            if report.rounds >= self.max_rounds:
                report.stopped = "max_rounds"
                break
            request = self._prepare(session, report, refused=refusals > 0)
            try:
                reply = self._ask(request)
            except ContextLengthExceeded as exc:
                refusals += 1
                if refusals >= MAX_REFUSALS:
                    raise ContextExhausted(
                        "This conversation has grown too long to continue reliably: the model"
                        f" refused it {refusals} times. Start a new session.",
                        context={"session_id": session_id, "provider_said": exc.message},
                    ) from None
                continue
            refusals = 0
            report.rounds += 1
            calls = session.reply(reply)
            self.listen("reply", {"text": reply.text, "calls": len(calls)})
            report.reply = reply.text
            for call in calls:
                self._call(session, call, report)
        return report

    def _ask(self, request: Request) -> Reply:
        """The model's reply, watched as it arrives when someone watches; only the finished
        reply is recorded, so a stream that broke and was retried leaves nothing behind."""
        if self.watch is None:
            return self.model.complete(request)
        return self.model.complete(request, self.watch)

    def _prepare(self, session: Session, report: TurnReport, refused: bool) -> Request:
        self.toolbox.skills = skills.discover(self.workdir)
        specs = self.toolbox.specs()
        system = system_prompt(self.workdir, self.toolbox.skills)
        request = session.prepare(system, specs, refused=refused)
        for attempt in session.attempts:
            taken = {
                "mode": attempt.mode,
                "reason": attempt.reason,
                "outcome": attempt.outcome,
                "checkpoint_id": attempt.checkpoint_id,
                "tokens_before": attempt.tokens_before,
                "tokens_after": attempt.tokens_after,
            }
            report.checkpoints.append(taken)
            self.listen("checkpoint", taken)
        return request

    def _call(self, session: Session, call: ToolCall, report: TurnReport) -> None:
        self.listen("call", {"name": call.name, "arguments": call.arguments})
        outcome = self.toolbox.run(call)
        session.tool_result(call, outcome.text, is_error=outcome.is_error, skill=outcome.skill)
        report.tool_calls.append(
            {
                "id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "error": outcome.is_error,
            }
        )
        self.listen("result", {"name": call.name, "text": outcome.text, "error": outcome.is_error})
