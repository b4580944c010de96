"""vybe's own tasks and memory as agent tools, through the actions layer, idempotent per call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vybe.actions import memory as memory_actions
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
            "remember": self.remember,
            "memory_get": self.memory_get,
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

    def remember(self, call: ToolCall) -> Outcome:
        args = call.arguments
        spec = memory_actions.MemoryInput(
            key=str(args.get("key", "")),
            value=str(args.get("value", "")),
            scope=str(args.get("scope") or "global"),
            scope_id=str(args["scope_id"]) if args.get("scope_id") else None,
            kind=str(args.get("kind") or "fact"),
        )
        stored = memory_actions.set_memory(self.store, self.agent, self._rid(call), spec)
        return Outcome(dumps(_memory(stored["memory"])))

    def memory_get(self, call: ToolCall) -> Outcome:
        args = call.arguments
        found = memory_actions.get(
            self.store,
            self.agent,
            key=str(args.get("key", "")),
            scope=str(args.get("scope") or "global"),
            scope_id=str(args["scope_id"]) if args.get("scope_id") else None,
        )
        return Outcome(dumps(_memory(found["memory"])))


def _memory(entry: dict[str, Any]) -> dict[str, Any]:
    keys = ("key", "value", "kind", "scope", "scope_id", "pinned", "expires_at", "updated_at")
    return {k: entry.get(k) for k in keys if entry.get(k) not in (None, "")}


def _brief(task: dict[str, Any]) -> dict[str, Any]:
    keys = ("id", "title", "status", "priority", "description", "blocked_reason")
    return {k: task.get(k) for k in keys if task.get(k) not in (None, "")}
