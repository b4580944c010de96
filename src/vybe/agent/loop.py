"""The agent loop behind ``vybe chat``: input -> engine.prepare -> model -> tools -> ...

Every input and reply is appended to the record before it is acted on, and the loop reads
what is owed from the record, so a run killed anywhere resumes with ``--session``: an
unanswered input is answered once, a recorded reply is never asked for again, and a call
whose result was never recorded gets a note saying so instead of running a second time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from vybe.agent import pending, skills
from vybe.agent.prompt import system_prompt
from vybe.agent.tools import Toolbox
from vybe.context.record import Record
from vybe.context.recorder import record_assistant, record_tool
from vybe.errors import ContextExhausted
from vybe.llm.base import ContextLengthExceeded, Model, Reply, Request, ToolSpec, Watch

MAX_ROUNDS = 50
MAX_REFUSALS = 4
INTERRUPTED = (
    "[This call was interrupted before its result was recorded: it may or may not have run. "
    "Check the current state before doing it again.]"
)


class Engine(Protocol):
    def new_run(self) -> None: ...

    def prepare(
        self, session_id: str, system: str, tools: tuple[ToolSpec, ...] = (), *, refused: bool
    ) -> Any: ...


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
        self.engine.new_run()
        report = TurnReport(session_id)
        for call in pending.unanswered_calls(self.record.messages(session_id)):
            record_tool(self.record, session_id, call, INTERRUPTED, is_error=True)
        refusals = 0
        while pending.awaits_model(self.record.messages(session_id)):
            if report.rounds >= self.max_rounds:
                report.stopped = "max_rounds"
                break
            prepared = self._prepare(session_id, report, refused=refusals > 0)
            try:
                reply = self._ask(prepared.request)
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
            record_assistant(
                self.record, session_id, reply, prepared.tokens, prepared.checkpoint_id
            )
            self.listen("reply", {"text": reply.text, "calls": len(reply.tool_calls)})
            report.reply = reply.text
            for call in reply.tool_calls:
                self._call(session_id, call, report)
        return report

    def _ask(self, request: Request) -> Reply:
        """The model's reply, watched as it arrives when someone watches; only the finished
        reply is recorded, so a stream that broke and was retried leaves nothing behind."""
        if self.watch is None:
            return self.model.complete(request)
        return self.model.complete(request, self.watch)

    def _prepare(self, session_id: str, report: TurnReport, refused: bool) -> Any:
        self.toolbox.skills = skills.discover(self.workdir)
        specs = self.toolbox.specs()
        system = system_prompt(self.workdir, self.toolbox.skills)
        prepared = self.engine.prepare(session_id, system, specs, refused=refused)
        for attempt in prepared.attempts:
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
        return prepared

    def _call(self, session_id: str, call: Any, report: TurnReport) -> None:
        self.listen("call", {"name": call.name, "arguments": call.arguments})
        outcome = self.toolbox.run(call)
        record_tool(
            self.record,
            session_id,
            call,
            outcome.text,
            is_error=outcome.is_error,
            skill=outcome.skill,
        )
        report.tool_calls.append(
            {
                "id": call.id,
                "name": call.name,
                "arguments": call.arguments,
                "error": outcome.is_error,
            }
        )
        self.listen("result", {"name": call.name, "text": outcome.text, "error": outcome.is_error})
