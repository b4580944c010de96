"""An approved plan's steps, read from its Markdown (Claude Code's ExitPlanMode).

Steps are the plan's numbered items (``1.``, ``2)``) at their outermost level, or, when it
numbers fewer than two, its outermost bullets (``-``, ``*``, ``+``, checkboxes too). Lines
indented under a step are its detail. Each step comes after the previous one unless it says
it does not need it ("in parallel", "independent", "any order"), or the plan says so of all
of them before its first step. A plan with no recognisable steps is one step: the whole plan.
"""

from __future__ import annotations

import re
from typing import NamedTuple

NUMBERED = re.compile(r"^(\s*)\d+[.)]\s+(.*\S)\s*$")
BULLET = re.compile(r"^(\s*)[-*+]\s+(?:\[[ xX]\]\s+)?(.*\S)\s*$")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*\S)\s*$")
UNORDERED = re.compile(r"(?i)\b(in parallel|independent(ly)?|in any order|any order)\b")
TITLE_CHARS = 200


class Step(NamedTuple):
    title: str
    detail: str
    after_previous: bool


def _clean(text: str) -> str:
    return re.sub(
        r"\*\*(.+?)\*\*|__(.+?)__|`(.+?)`", lambda m: next(g for g in m.groups() if g), text
    )


def _items(lines: list[str], pattern: re.Pattern[str]) -> list[tuple[int, int, str]]:
    """(line index, indent, text) of the items at the outermost indent ``pattern`` finds."""
    found = [
        (i, len(m.group(1)), m.group(2))
        for i, line in enumerate(lines)
        if (m := pattern.match(line))
    ]
    outermost = min((indent for _, indent, _ in found), default=0)
    return [item for item in found if item[1] == outermost]


def _detail(lines: list[str], start: int, indent: int) -> str:
    """The lines indented under the item at ``start`` (blank lines inside kept)."""
    kept = []
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        kept.append(line.strip())
    return "\n".join(kept).strip()


def title(plan: str) -> str:
    """The plan's first heading, or its first line."""
    for line in plan.splitlines():
        found = HEADING.match(line)
        if found:
            return _clean(found.group(1))[:TITLE_CHARS]
    first = next((line.strip() for line in plan.splitlines() if line.strip()), "Plan")
    return _clean(first)[:TITLE_CHARS]


def steps(plan: str) -> list[Step]:
    """The plan's steps in order; one step holding the plan when it has none."""
    lines = plan.splitlines()
    items = _items(lines, NUMBERED)
    if len(items) < 2:
        items = _items(lines, BULLET)
    if len(items) < 2:
        return [Step(title(plan), plan.strip(), False)]
    all_unordered = bool(UNORDERED.search("\n".join(lines[: items[0][0]])))
    found = []
    for n, (index, indent, text) in enumerate(items):
        words = _clean(text)
        detail = _detail(lines, index, indent)
        if len(words) > TITLE_CHARS:
            detail = "\n\n".join(part for part in (words, detail) if part)
            words = words[: TITLE_CHARS - 1] + "…"
        ordered = n > 0 and not all_unordered and not UNORDERED.search(text)
        found.append(Step(words, detail, ordered))
    return found
