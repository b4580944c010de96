"""vybe's own operations as agent tools, built from the declarations (vybe.operations):
the same names, arguments, bounds and results as the MCP tools, idempotent per call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from vybe.agent.tools import Outcome, dumps
from vybe.errors import VybeError
from vybe.llm.base import ToolCall, ToolSpec
from vybe.operations import catalog
from vybe.operations.model import AGENT, Context, Operation, for_tools
from vybe.store import Store


def specs() -> tuple[ToolSpec, ...]:
    """vybe's operations as the agent's tool specs, in declaration order."""
    return tuple(
        ToolSpec(op.tool, op.summary, op.input_schema(AGENT)) for op in catalog().on(AGENT)
    )


@dataclass
class TaskTools:
    """A call id is the request id: a call re-run after a crash returns its first result."""

    store: Store
    agent: str
    session_id: str

    def __post_init__(self) -> None:
        self.operations = {op.tool: op for op in catalog().on(AGENT)}

    def specs(self) -> tuple[ToolSpec, ...]:
        return specs()

    def handlers(self) -> dict[str, Callable[[ToolCall], Outcome]]:
        return {name: partial(self.run, op) for name, op in self.operations.items()}

    def run(self, op: Operation, call: ToolCall) -> Outcome:
        """The result as JSON text; a refusal is an error result with vybe's code first."""
        try:
            values = op.accept(call.arguments, AGENT)
            ctx = Context(self.store, self.agent, f"chat:{self.session_id}:{call.id}", AGENT)
            return Outcome(dumps(op.shown(op.call(ctx, values), values)))
        except VybeError as error:
            refused = for_tools(error)
            return Outcome(f"{refused.code}: {refused.message}", True)
