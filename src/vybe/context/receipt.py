"""A compaction's receipt in one line, as the agent sees it after the compaction: ``3rd
compaction of this session; your 7 kept instructions were restored verbatim``.

Shared by the engine's recollection and the context the hooks give Claude Code and Codex
back after theirs (vybe.integrations.hooks.compaction). Standard library only: hooks import it.
"""

from __future__ import annotations


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def line(count: int, receipt: dict, harness: str, earlier: int = 0) -> str:
    """The receipt in one line: ``3rd compaction of this session; your 7 kept instructions
    were restored verbatim``, and what was cut, kept by the harness, or left in the record.
    ``receipt`` lists record numbers under ``verbatim``, ``cut``, ``kept`` and ``released``;
    ``earlier``: how many more, older, are in the record only (no receipt lists them)."""
    verbatim = len(receipt["verbatim"])
    were = "was" if verbatim == 1 else "were"
    parts = [f"{ordinal(count)} compaction of this session"]
    if verbatim or not receipt["kept"]:  # what the harness kept itself is not given twice
        parts.append(f"your {_count(verbatim, 'kept instruction')} {were} restored verbatim")
    if receipt["cut"]:
        parts.append(f"{len(receipt['cut'])} cut short (whole in the record)")
    if receipt["kept"]:
        parts.append(f"{_count(len(receipt['kept']), 'message')} stayed in {harness}'s own context")
    if receipt["released"] or earlier > 0:
        parts.append(f"{len(receipt['released']) + earlier} more in the record only (search it)")
    return "; ".join(parts)
