"""Where a checkpoint cuts, and what it carries over: kept inputs, memo, files, skills."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vybe.context.assemble import View
from vybe.context.projection import Unit, turn_inputs, units
from vybe.context.record import MessageRow

READ_TOOLS = ("read", "read_file", "view", "cat")
MODIFY_TOOLS = ("write", "edit", "write_file", "edit_file", "apply_patch", "create", "multi_edit")
PATH_KEYS = ("path", "file_path", "filename")
MAX_MODIFIED = 10
MAX_READ = 5
MAX_SKILLS = 20


@dataclass(frozen=True)
class Cut:
    """Rows that move out, rows that stay, and the turn inputs carried word for word."""

    moved: list[MessageRow]
    kept: list[MessageRow]
    kept_inputs: tuple[int, ...]

    @property
    def first_kept_seq(self) -> int:
        return self.kept[0].seq

    @property
    def summarized_to(self) -> int:
        return self.first_kept_seq - 1


def tail_index(parts: list[Unit], keep: int) -> int:
    """Start of the longest run of whole units at the end within ``keep``; at least one unit."""
    index, used = len(parts) - 1, parts[-1].tokens
    while index > 0 and used + parts[index - 1].tokens <= keep:
        index -= 1
        used += parts[index].tokens
    return index


def fraction_index(parts: list[Unit], fraction: float) -> int:
    """The unit where ``fraction`` of the tokens is reached; never 0, never past the last."""
    total, used = sum(u.tokens for u in parts), 0
    for index, unit in enumerate(parts):
        if index and used >= total * fraction:
            return min(index, len(parts) - 1)
        used += unit.tokens
    return len(parts) - 1


def cut_at(view: View, index: int) -> Cut:
    parts = units(view.rows)
    moved = [r for u in parts[:index] for r in u.rows]
    kept = [r for u in parts[index:] for r in u.rows]
    first = kept[0].seq
    inputs = turn_inputs(view.kept_inputs + view.rows)
    return Cut(moved, kept, tuple(r.seq for r in inputs if r.seq < first))


def _call_paths(moved: list[MessageRow]) -> list[tuple[str, str]]:
    """(kind, path) of successful file tool calls, oldest first."""
    failed = {
        r.data.get("tool_call_id") for r in moved if r.type == "tool" and r.data.get("is_error")
    }
    found = []
    for row in moved:
        for call in row.data.get("tool_calls", ()) if row.type == "assistant" else ():
            path = next(
                (call["arguments"].get(k) for k in PATH_KEYS if k in call["arguments"]), None
            )
            if not isinstance(path, str) or call["id"] in failed:
                continue
            if call["name"] in MODIFY_TOOLS:
                found.append(("modified", path[:160]))
            elif call["name"] in READ_TOOLS:
                found.append(("read", path[:160]))
    return found


def carry_files(previous: dict[str, Any], moved: list[MessageRow]) -> dict[str, Any]:
    """Paths only: the 10 most recently modified and the 5 most recently read files."""
    modified, read = list(previous.get("modified", [])), list(previous.get("read", []))
    for kind, path in _call_paths(moved):
        target = modified if kind == "modified" else read
        if path in target:
            target.remove(path)
        target.insert(0, path)
    read = [p for p in read if p not in modified]
    return {
        "modified": modified[:MAX_MODIFIED],
        "read": read[:MAX_READ],
        "modified_omitted": previous.get("modified_omitted", False) or len(modified) > MAX_MODIFIED,
        "read_omitted": previous.get("read_omitted", False) or len(read) > MAX_READ,
    }


def carry_skills(
    previous: tuple[dict[str, Any], ...], moved: list[MessageRow], kept: list[MessageRow]
) -> tuple[dict[str, Any], ...]:
    """Skills loaded before the cut and not loaded again after it, most recent first."""
    by_name = {s["name"]: s for s in previous}
    for row in moved:
        if row.type == "tool" and row.data.get("skill"):
            by_name[row.data["skill"]] = {"name": row.data["skill"], "seq": row.seq}
    again = {r.data.get("skill") for r in kept if r.type == "tool"}
    live = [s for name, s in by_name.items() if name not in again]
    return tuple(sorted(live, key=lambda s: -s["seq"])[:MAX_SKILLS])
