"""The agent's tools: their specs for the model and one dispatcher that never raises."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vybe.agent import files, shell, skills
from vybe.agent.shell import BashPermission
from vybe.errors import VybeError
from vybe.llm.base import ToolCall, ToolSpec


def _spec(tool: str, summary: str, required: tuple[str, ...], **props: str) -> ToolSpec:
    kinds = {"offset": "integer", "limit": "integer", "timeout": "integer", "priority": "integer"}
    properties = {k: {"type": kinds.get(k, "string"), "description": v} for k, v in props.items()}
    schema = {"type": "object", "properties": properties, "required": list(required)}
    return ToolSpec(tool, summary, schema)


FILE_TOOLS = (
    _spec(
        "read",
        "Read a text file inside the working folder (outside it only when the person started"
        " the session with --allow-read-anywhere). Long files: use offset (1-based line) and"
        " limit. Symbolic links are not followed; a file with several hard links is read"
        " only from a folder no one but the user may write.",
        ("path",),
        path="file path, relative to the working folder or absolute",
        offset="first line to read (default 1)",
        limit="how many lines (default 2000)",
    ),
    _spec(
        "write",
        "Create or overwrite a file inside the working folder with the given content"
        " (not one with several hard links).",
        ("path", "content"),
        path="file path",
        content="the whole new content",
    ),
    _spec(
        "edit",
        "Replace one unique occurrence of old_text in a file with new_text.",
        ("path", "old_text", "new_text"),
        path="file path",
        old_text="exact text that occurs once in the file",
        new_text="the replacement",
    ),
    _spec(
        "bash",
        "Run a bash command in the working folder (only when the person allows it).",
        ("command",),
        command="the command line",
        timeout="seconds before it is stopped (default 120, at most 600)",
    ),
    _spec(
        "skill_load",
        "Load a skill from the catalog in the system prompt: returns its full instructions.",
        ("name",),
        name="the skill's name",
    ),
)


@dataclass(frozen=True)
class Outcome:
    """A tool's result as the model will read it."""

    text: str
    is_error: bool = False
    skill: str | None = None


@dataclass
class Toolbox:
    """Runs the agent's tool calls; vybe's own tasks go through the actions layer."""

    workdir: Path
    skills: dict[str, skills.Skill]
    bash: BashPermission
    tasks: Any = None  # vybe's own operations (a TaskTools: specs, handlers), given a store
    read_anywhere: bool = False  # the person let read go outside the working folder

    def specs(self) -> tuple[ToolSpec, ...]:
        if self.tasks is None:
            return FILE_TOOLS
        specs: tuple[ToolSpec, ...] = FILE_TOOLS + self.tasks.specs()
        return specs

    def run(self, call: ToolCall) -> Outcome:
        """The call's outcome; a bad call or a failure is an error result, never a raise."""
        handler = self._handlers().get(call.name)
        if handler is None:
            return Outcome(f"unknown tool {call.name!r}", True)
        if "_raw" in call.arguments:
            return Outcome("the arguments were not valid JSON; send a JSON object", True)
        try:
            return handler(call)
        except Exception as exc:  # the model hears of any failure; the run goes on
            message = exc.message if isinstance(exc, VybeError) else str(exc).strip("'\"")
            return Outcome(f"{call.name} failed: {message or type(exc).__name__}", True)

    def _handlers(self) -> dict[str, Callable[[ToolCall], Outcome]]:
        handlers: dict[str, Callable[[ToolCall], Outcome]] = {
            "read": lambda c: Outcome(
                files.read(
                    self.workdir, **_only(c, "path offset limit"), anywhere=self.read_anywhere
                )
            ),
            "write": lambda c: Outcome(files.write(self.workdir, **_only(c, "path content"))),
            "edit": lambda c: Outcome(
                files.edit(self.workdir, **_only(c, "path old_text new_text"))
            ),
            "bash": self._bash,
            "skill_load": self._skill,
        }
        if self.tasks is not None:
            handlers.update(self.tasks.handlers())
        return handlers

    def _bash(self, call: ToolCall) -> Outcome:
        command = call.arguments.get("command")
        if not isinstance(command, str) or not command.strip():
            return Outcome("bash needs a command", True)
        if not self.bash.permits(command):
            return Outcome(shell.REFUSED, True)
        text, failed = shell.run(self.workdir, command, call.arguments.get("timeout"))
        return Outcome(text, failed)

    def _skill(self, call: ToolCall) -> Outcome:
        name = str(call.arguments.get("name", ""))
        return Outcome(skills.load(self.skills, name), skill=name)


def _only(call: ToolCall, names: str) -> dict[str, Any]:
    """The call's arguments that the tool takes; a missing required one is a TypeError."""
    return {k: v for k, v in call.arguments.items() if k in names.split()}


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)
