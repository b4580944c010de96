"""Rows of the record as model messages, grouped in units that are never split."""

from __future__ import annotations

from dataclasses import dataclass

from vybe.context.record import MessageRow
from vybe.llm.base import Message, ToolCall

INPUT_TYPES = ("user", "harness", "system")


@dataclass(frozen=True)
class Unit:
    """An input, or a reply with the results of its tool calls: cuts fall only between units."""

    rows: tuple[MessageRow, ...]

    @property
    def tokens(self) -> int:
        return sum(r.tokens for r in self.rows)


def to_message(row: MessageRow) -> Message:
    """One row as the model sees it; inputs of every kind are user turns."""
    if row.type == "assistant":
        calls = tuple(
            ToolCall(c["id"], c["name"], c["arguments"]) for c in row.data.get("tool_calls", ())
        )
        return Message("assistant", row.text, calls)
    if row.type == "tool":
        return Message("tool", row.text, tool_call_id=row.data.get("tool_call_id"))
    return Message("user", row.text)


def units(rows: list[MessageRow]) -> list[Unit]:
    """Group rows: each input alone; each reply with the tool results that follow it."""
    groups: list[list[MessageRow]] = []
    for row in rows:
        if row.type == "tool" and groups and groups[-1][0].type == "assistant":
            groups[-1].append(row)
        else:
            groups.append([row])
    return [Unit(tuple(g)) for g in groups]


def turn_inputs(rows: list[MessageRow]) -> list[MessageRow]:
    """The inputs of the turn in progress: those after the last reply that called no tool."""
    start = 0
    for index, row in enumerate(rows):
        if row.type == "assistant" and not row.data.get("tool_calls"):
            start = index + 1
    return [r for r in rows[start:] if r.type in INPUT_TYPES]
