"""The MIND file: its template, its checks, and what is kept when a revision is unusable.

Stronger than the reference: every earlier Mission entry must survive word for word (status
suffix aside), text under Mission that is not an entry is a problem (so no mission is
unprotected prose), and a mind reset to the empty template over a non-empty one is a problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vybe.context.budget import Budget, estimate

HEADINGS = (
    "# 1. Where I stand",
    "## For whom and why",
    "## What I own",
    "## Agreements",
    "# 2. Goals",
    "## Mission",
    "## Workstreams",
    "# 3. Key decisions",
    "# 4. Lessons",
)
MISSION = "## Mission"
SECTIONS = {
    "Where I stand": HEADINGS[0:4],
    "Goals": HEADINGS[4:7],
    "Key decisions": HEADINGS[7:8],
    "Lessons": HEADINGS[8:9],
}
# Leaf headings get a placeholder when empty; "# 1." and "# 2." hold only their subsections.
PLACEHOLDERS = {
    "## For whom and why": "(none yet: for whom and why)",
    "## What I own": "(none yet: what I own)",
    "## Agreements": "(none yet: agreements)",
    "## Mission": "(none yet: mission)",
    "## Workstreams": "(none yet: workstreams)",
    "# 3. Key decisions": "(none yet: key decisions)",
    "# 4. Lessons": "(none yet: lessons)",
}
_STATUS = re.compile(r"\s*\(status:[^()]*\)\s*$")
# A heading line a model renamed ("## Mission:", "### 2) Workstreams", "# Decisions") is
# recognised by one distinctive word; leaves come first, so "# Goals and mission" is Mission.
_HEADING_LINE = re.compile(r"^\s*#{1,6}\s+(.+?)\s*$")
_KEYWORDS = (
    ("## For whom and why", re.compile(r"\bwhom\b")),
    ("## What I own", re.compile(r"\bown\b|\bownership\b")),
    ("## Agreements", re.compile(r"\bagreements?\b")),
    ("## Mission", re.compile(r"\bmissions?\b")),
    ("## Workstreams", re.compile(r"\bwork ?streams?\b")),
    ("# 3. Key decisions", re.compile(r"\bdecisions?\b")),
    ("# 4. Lessons", re.compile(r"\blessons?\b")),
    ("# 1. Where I stand", re.compile(r"\bstand\b")),
    ("# 2. Goals", re.compile(r"\bgoals?\b")),
)


def template() -> str:
    return render({h: [] for h in HEADINGS})


def render(bodies: dict[str, list[str]]) -> str:
    """Headings in order, each followed by its body or its placeholder."""
    out: list[str] = []
    for heading in HEADINGS:
        if heading.startswith("# ") and out:
            out.append("")
        out.append(heading)
        body = _trim(bodies.get(heading, []))
        out.extend(body or ([PLACEHOLDERS[heading]] if heading in PLACEHOLDERS else []))
    return "\n".join(out) + "\n"


def _trim(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _meaningful(heading: str, lines: list[str]) -> list[str]:
    placeholder = PLACEHOLDERS.get(heading)
    return [ln for ln in _trim(lines) if ln.strip() and ln.strip() != placeholder]


@dataclass
class Parsed:
    """A mind split at its heading lines; ``problems`` says what of the structure is wrong."""

    preamble: list[str] = field(default_factory=list)
    bodies: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def parse(text: str) -> Parsed:
    """Find each heading line once, in order; lines between headings are their body."""
    lines = text.splitlines()
    positions: dict[str, list[int]] = {h: [] for h in HEADINGS}
    for index, line in enumerate(lines):
        if line.rstrip() in positions:
            positions[line.rstrip()].append(index)
    parsed = Parsed()
    for heading, found in positions.items():
        if not found:
            parsed.problems.append(f'the heading line "{heading}" is missing')
        elif len(found) > 1:
            parsed.problems.append(f'the heading line "{heading}" appears {len(found)} times')
    starts = sorted((found[0], h) for h, found in positions.items() if len(found) == 1)
    if [h for _, h in starts] != [h for h in HEADINGS if len(positions[h]) == 1]:
        parsed.problems.append("the heading lines are out of order")
    parsed.preamble = lines[: starts[0][0]] if starts else lines
    ends = [start for start, _ in starts[1:]] + [len(lines)] * bool(starts)
    for (start, heading), end in zip(starts, ends, strict=True):
        parsed.bodies[heading] = [
            ln for ln in lines[start + 1 : end] if ln.rstrip() not in positions
        ]
    return parsed


def strip_status(entry: str) -> str:
    """A Mission entry's text without its `` (status: ...)`` suffix."""
    return _STATUS.sub("", entry.rstrip())


def mission_entries(parsed: Parsed) -> list[str]:
    """Lines under ## Mission that start with ``- ``, status suffix stripped."""
    return [strip_status(ln) for ln in parsed.bodies.get(MISSION, []) if ln.startswith("- ")]


def is_empty(parsed: Parsed) -> bool:
    """Every section holds nothing but its placeholder."""
    return not _meaningful("# 1. Where I stand", parsed.preamble) and all(
        not _meaningful(h, parsed.bodies.get(h, [])) for h in HEADINGS
    )


def section_sizes(parsed: Parsed) -> dict[str, int]:
    """Tokens of each section, heading lines included; a placeholder-only body counts empty."""
    sizes = {}
    for name, headings in SECTIONS.items():
        lines = list(parsed.preamble) if name == "Where I stand" else []
        for heading in headings:
            lines.append(heading)
            lines.extend(_meaningful(heading, parsed.bodies.get(heading, [])))
        sizes[name] = estimate("\n".join(lines))
    return sizes


def over_limits(parsed: Parsed, budget: Budget) -> dict[str, tuple[int, int]]:
    sizes = section_sizes(parsed)
    return {n: (sizes[n], lim) for n, lim in budget.mind_limits.items() if sizes[n] > lim}


def lost_missions(previous: str, parsed: Parsed) -> list[str]:
    """Earlier Mission entries whose text is no longer there word for word."""
    if not previous:
        return []
    kept = list(mission_entries(parsed))
    lost = []
    for entry in mission_entries(parse(previous)):
        if entry in kept:
            kept.remove(entry)
        else:
            lost.append(entry)
    return lost


def _mission_prose(parsed: Parsed) -> list[str]:
    return [
        ln for ln in _meaningful(MISSION, parsed.bodies.get(MISSION, [])) if not ln.startswith("- ")
    ]


def review(text: str, previous: str, budget: Budget) -> list[str]:
    """Every problem of a revised mind against the one the checkpoint started from."""
    parsed = parse(text)
    problems = []
    if parsed.problems:
        restored = restore(text)
        how = (
            "the headings were renamed or moved: put back each heading line exactly as the"
            " template has it, in order"
            if restored is not None
            else "keep every heading line exactly as it is, in order"
        )
        problems.append("mind.md lost its structure: " + ", ".join(parsed.problems) + "; " + how)
        parsed = parse(restored) if restored is not None else parsed
    for entry in lost_missions(previous, parsed):
        problems.append(
            f'the Mission entry "{entry}" was deleted or reworded: put it back word for word'
            " and mark its status at its end, e.g. (status: done)"
        )
    if _mission_prose(parsed):
        problems.append(
            "the Mission holds text that is not an entry: write each mission as one line"
            ' starting with "- "'
        )
    if previous and not is_empty(parse(previous)) and is_empty(parsed):
        problems.append(
            "mind.md was reset to the empty template: revise the previous mind with edits,"
            " never overwrite it"
        )
    for name, (size, limit) in over_limits(parsed, budget).items():
        problems.append(
            f"mind.md is over its length limits: {name} is about {size} tokens, at most {limit};"
            " condense it"
        )
    return problems


@dataclass(frozen=True)
class Settled:
    """The mind a checkpoint keeps, and which fallback, if any, chose it."""

    mind: str
    fallback: str | None = None


def _salvage(text: str, previous: str) -> str:
    """Sections the revision kept intact, the previous ones for the rest, lost missions back."""
    new, old = parse(text), parse(previous or template())
    placeholders = set(PLACEHOLDERS.values())
    bodies = {
        h: [ln for ln in new.bodies.get(h, old.bodies.get(h, [])) if ln.strip() not in placeholders]
        for h in HEADINGS
    }
    missing = lost_missions(previous, parse(render(bodies)))
    current = [ln if ln.startswith("- ") else f"- {ln.strip()}" for ln in _trim(bodies[MISSION])]
    bodies[MISSION] = missing + [ln for ln in current if ln.strip() != "-"]
    return render(bodies)


def _recognised(line: str) -> str | None:
    """The template heading a heading line stands for, however it was renamed."""
    match = _HEADING_LINE.match(line)
    if match is None:
        return None
    title = match.group(1).lower()
    return next((h for h, word in _KEYWORDS if word.search(title)), None)


def restore(text: str) -> str | None:
    """The mind with renamed or reordered heading lines put back as the template has them.

    None when its structure cannot be recognised: a template heading matched twice, or no
    Mission heading at all (then the previous mind is kept)."""
    lines = text.splitlines()
    found: dict[str, int] = {}
    for index, line in enumerate(lines):
        heading = _recognised(line)
        if heading is None:
            continue
        if heading in found:
            return None
        found[heading] = index
        lines[index] = heading
    if MISSION not in found:
        return None
    parsed = parse("\n".join(lines))
    bodies = {h: parsed.bodies.get(h, []) for h in HEADINGS}
    preamble = _trim(parsed.preamble)
    return "\n".join([*preamble, "", render(bodies)]) if preamble else render(bodies)


def settle(text: str, previous: str, budget: Budget) -> Settled:
    """After the repair: keep more rather than less, as the seed's table says.

    A mind whose headings were only renamed or reordered is restored to the template's
    heading lines (``mind_headings_restored``) and then judged like any other."""
    parsed = parse(text)
    restored = restore(text) if parsed.problems else None
    if restored is not None and not parse(restored).problems:
        settled = settle(restored, previous, budget)
        return Settled(settled.mind, settled.fallback or "mind_headings_restored")
    previous_empty = not previous or is_empty(parse(previous))
    if is_empty(parsed) and not parsed.problems:
        return Settled("") if previous_empty else Settled(previous, "mind_reset_kept_previous")
    if sum(section_sizes(parsed).values()) > 2 * sum(budget.mind_limits.values()):
        return Settled(previous, "mind_too_large_kept_previous")
    if parsed.problems or lost_missions(previous, parsed) or _mission_prose(parsed):
        salvaged = _salvage(text, previous)
        check = parse(salvaged)
        if check.problems or lost_missions(previous, check) or is_empty(check):
            return Settled(previous, "mind_broken_kept_previous")
        return Settled(salvaged, "mind_salvaged")
    if over_limits(parsed, budget):
        return Settled(text, "mind_over_limit_shown_cut")
    return Settled(text)


def seed(previous: str) -> str:
    """mind.md as the checkpoint turn starts: the previous mind, placeholders back in."""
    if not previous:
        return template()
    parsed = parse(previous)
    if parsed.problems:
        return previous if previous.endswith("\n") else previous + "\n"
    bodies = {h: _trim(parsed.bodies.get(h, [])) for h in HEADINGS}
    return "\n".join([*parsed.preamble, render(bodies)]) if parsed.preamble else render(bodies)


def shown(mind: str, budget: Budget, pointer: str) -> tuple[str, bool]:
    """The mind as a checkpoint shows it: over-limit sections cut, every heading kept."""
    parsed = parse(mind)
    over = over_limits(parsed, budget)
    if not over or parsed.problems:
        return mind.rstrip("\n"), False
    out: list[str] = list(parsed.preamble)
    note = f"[This section continues; the whole mind is in the record: {pointer}]"
    for name, headings in SECTIONS.items():
        room = budget.mind_limits[name] * 4 if name in over else None
        cut = False
        for heading in headings:
            out.append(heading)
            for line in [] if cut else parsed.bodies.get(heading, []):
                if room is not None:
                    room -= len(line.encode("utf-8")) + 1
                    if room < 0:
                        cut = True
                        out.append(note)
                        break
                out.append(line)
    return "\n".join(out).rstrip("\n"), True
