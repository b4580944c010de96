"""Rewrite mode (``vybe proxy --checkpoints``): the proxy keeps each session inside the
window itself, for agents that never compact, as ``vybe.Session`` does.

Every request is rebuilt from the session's record by the engine (``Engine.prepare``): the
client's system prompt and tools, the latest checkpoint's recollection, and the messages
after it; when the next request would pass the threshold, the engine first runs its
checkpoint turn against the upstream with the client's credentials. The client goes on
sending its whole history: its new inputs are recorded (the prefix it resends is
recognised by the record's keys, never recorded again) and the engine's rebuild, not the
history, goes upstream, so a tool call and its result are never split (the engine moves
whole units). The engines run in the writer's thread, on its record, one per session, so
each request reads only what the record gained since the last (the engine's views).
"""

from __future__ import annotations

from typing import Any

from vybe.context.budget import ModelLimits
from vybe.context.engine import Engine, Prepared
from vybe.context.record import Record
from vybe.llm.base import Model
from vybe.llm.models import resolve
from vybe.proxy import upstream


class Rewriter:
    """The engines of the sessions in rewrite mode; ``window`` overrides the model's."""

    def __init__(self, window: int | None) -> None:
        self.window = window
        self.engines: dict[str, Engine] = {}  # touched by the writer thread only

    def prepare(
        self, record: Record, session_id: str, api: str, body: dict[str, Any], model: Model
    ) -> Prepared:
        """The engine's request for this turn (run in the writer's thread)."""
        limits = ModelLimits(window=self.window or resolve(model.name).window)
        engine = self.engines.get(session_id)
        if engine is None or engine.limits != limits:
            engine = self.engines[session_id] = Engine(record, model, limits)
        engine.model = model  # this request's credentials
        system = upstream.system_of(api, body)
        return engine.prepare(session_id, system, upstream.tools_of(api, body))
