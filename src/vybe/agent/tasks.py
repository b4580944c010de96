"""vybe's own tasks as agent tools, through the actions layer, idempotent per tool call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vybe.actions import tasks as task_actions
from vybe.agent.tools import Outcome, dumps
from vybe.llm.base import ToolCall
from vybe.store import Store
from vybe.store.tasks import TaskQuery


@dataclass
class TaskTools:
    """A call id is the request id: a call re-run after a crash returns its first result."""

    store: Store
    agent: str
    session_id: str

    def _rid(self, call: ToolCall) -> str:
        return f"chat:{self.session_id}:{call.id}"

    def handlers(self) -> dict[str, Callable[[ToolCall], Outcome]]:
        return {
            "task_list": self.list,
            "task_create": self.create,
            "task_done": self.done,
            "task_note": self.note,
        }

    def list(self, call: ToolCall) -> Outcome:
        status = call.arguments.get("status") or None
        found = task_actions.list_tasks(self.store, TaskQuery(status=status, limit=100))
        brief = [_brief(t) for t in found["tasks"]]
        return Outcome(dumps(brief) if brief else "(no tasks)")

    def create(self, call: ToolCall) -> Outcome:
        args = call.arguments
        made = task_actions.create(
            self.store,
            self.agent,
            self._rid(call),
            title=str(args.get("title", "")),
            description=str(args.get("description") or ""),
            priority=int(args.get("priority") or 0),
        )
        return Outcome(dumps(_brief(made["task"])))

    def done(self, call: ToolCall) -> Outcome:
        result = task_actions.done(
            self.store,
            self.agent,
            self._rid(call),
            task_id=str(call.arguments.get("task_id", "")),
            note=str(call.arguments.get("note") or ""),
        )
        return Outcome(dumps(result.get("task", result)))

    def note(self, call: ToolCall) -> Outcome:
        result = task_actions.note(
            self.store,
            self.agent,
            self._rid(call),
            task_id=str(call.arguments.get("task_id", "")),
            message=str(call.arguments.get("message", "")),
        )
        return Outcome(dumps(result))


def _brief(task: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "title", "status", "priority", "description", "blocked_reason")
    return {k: task.get(k) for k in keys if task.get(k) not in (None, "")}
