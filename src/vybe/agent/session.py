"""``Session``: one agent session kept inside its model's window, for any agent loop.

    session = Session(model, ModelLimits(window=200_000), record="vybe.db")
    session.user("Review the open PRs, oldest first.")
    while session.awaits_model:
        reply = model.complete(session.prepare(system, tools))
        for call in session.reply(reply):
            session.tool_result(call, run(call))

It owns the record-before-you-act contract: every input, reply and tool result is in the
record before the loop acts on it; ``prepare`` checkpoints when due and refuses to build a
request while a tool call of the last reply has no result (a provider would answer HTTP
400); ``reply`` records the request's estimate with the reply's reported usage, so the token
count calibrates itself; ContextExhausted says when nothing more can move out.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from vybe import clock
from vybe.agent import pending
from vybe.context.budget import ModelLimits
from vybe.context.engine import Engine, Prepared
from vybe.context.labels import Dispatch
from vybe.context.record import Attempt, MemoryRecord, MessageRow, Record, check_session_id
from vybe.context.recorder import record_assistant, record_harness, record_tool, record_user
from vybe.errors import InvalidInput
from vybe.llm.base import Model, Reply, Request, ToolCall, ToolSpec


def _record(where: Record | str | os.PathLike[str] | None) -> tuple[Record, Any]:
    """A record (the one given, a vybe store at a path, or one in memory), and the store this
    opened, if it opened one."""
    if where is None:
        return MemoryRecord(), None
    if isinstance(where, str | os.PathLike):
        from vybe.store import SqliteStore
        from vybe.store.record import SqliteRecord

        store = SqliteStore(where)
        return SqliteRecord(store), store
    return where, None


class Session:
    """One session of an agent: inputs, requests, replies and tool results, in order."""

    def __init__(
        self,
        model: Model,
        limits: ModelLimits | None = None,
        *,
        record: Record | str | os.PathLike[str] | None = None,
        session_id: str | None = None,
        system: str = "",
        tools: Sequence[ToolSpec] = (),
    ) -> None:
        where, self._opened = _record(record)
        engine = Engine(where, model, limits or ModelLimits())
        self._start(engine, session_id or clock.new_id("ses"), system, tuple(tools))

    @classmethod
    def over(cls, engine: Engine, session_id: str) -> Session:
        """A session of an engine that already runs (``vybe chat``'s)."""
        session = cls.__new__(cls)
        session._opened = None
        session._start(engine, session_id, "", ())
        return session

    def close(self) -> None:
        """Close the store this session opened from a path (a record given is left open)."""
        if self._opened is not None:
            self._opened.close()
            self._opened = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _start(
        self, engine: Engine, session_id: str, system: str, tools: tuple[ToolSpec, ...]
    ) -> None:
        self.engine, self.id = engine, check_session_id(session_id)
        self.system, self.tools = system, tools
        self.prepared: Prepared | None = None  # the request the next reply answers
        self.last: Prepared | None = None

    @property
    def record(self) -> Record:
        return self.engine.record

    def _rows(self) -> list[MessageRow]:
        """The rows since the latest checkpoint: what is owed is always among them."""
        return self.engine.views.load(self.id).rows

    @property
    def pending_calls(self) -> list[ToolCall]:
        """The calls of the last reply that have no result yet, in call order."""
        return pending.unanswered_calls(self._rows())

    @property
    def awaits_model(self) -> bool:
        """Whether the model is owed a request: an input, or tool results, came last."""
        return pending.awaits_model(self._rows())

    @property
    def attempts(self) -> tuple[Attempt, ...]:
        """The checkpoint attempts the last ``prepare`` made."""
        return self.last.attempts if self.last else ()

    def new_run(self) -> None:
        """A person's message starts a run: the unproductive-checkpoint count starts again."""
        self.engine.new_run()

    def user(self, text: str, author: str = "user") -> int:
        """A message a person typed; its number in the record."""
        return record_user(self.record, self.id, text, author).seq

    def harness(self, label: Dispatch, text: str) -> int:
        """An input no person typed (a watch, task, callback, agent run): labelled as such."""
        return record_harness(self.record, self.id, label, text).seq

    def prepare(
        self,
        system: str | None = None,
        tools: Sequence[ToolSpec] | None = None,
        *,
        refused: bool = False,
    ) -> Request:
        """The request to send now; ``refused`` after the provider refused the last one as too
        long. Checkpoints when due; raises ContextExhausted when nothing more can move out."""
        owed = self.pending_calls
        if owed:
            raise InvalidInput(
                f"the last reply's tool call {owed[0].id} ({owed[0].name}) has no result yet",
                context={"unanswered": [c.id for c in owed]},
                suggested_action="record each call's result with tool_result() first",
            )
        frame = self.system if system is None else system
        specs = self.tools if tools is None else tuple(tools)
        self.prepared = self.last = self.engine.prepare(self.id, frame, specs, refused=refused)
        return self.prepared.request

    def reply(self, reply: Reply) -> tuple[ToolCall, ...]:
        """Record the model's reply to the prepared request; the calls it asks to run."""
        if self.prepared is None:
            raise InvalidInput(
                "no request was prepared for this reply",
                suggested_action="call prepare() and send its request before reply()",
            )
        prepared, self.prepared = self.prepared, None
        record_assistant(self.record, self.id, reply, prepared.tokens, prepared.checkpoint_id)
        return reply.tool_calls

    def tool_result(
        self, call: ToolCall, output: str, *, is_error: bool = False, skill: str | None = None
    ) -> int:
        """The result of one call of the last reply; ``skill`` names a skill it loaded."""
        if call.id not in {c.id for c in self.pending_calls}:
            raise InvalidInput(
                f"{call.id!r} is not a call of the last reply still waiting for its result",
                context={"call_id": call.id},
            )
        return record_tool(self.record, self.id, call, output, is_error=is_error, skill=skill).seq

    def __repr__(self) -> str:
        return f"Session({self.id!r}, model={self.engine.model.name!r})"
