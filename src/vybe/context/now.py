"""The NOW: exactly one <checkpoint> block in the final reply, long enough, its references real."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from vybe.context.budget import estimate

TAG = re.compile(r"<\s*(/?)\s*checkpoint\b([^>]*)>", re.IGNORECASE)
# A model's <silent> notes are left out of what it said, but not where it quotes them as
# code: a fenced block (``` or ~~~, to its closing fence or the end) or a backtick span.
# Read left to right, whichever starts first wins: a note holding backticks goes whole.
SILENT_OR_CODE = re.compile(
    r"(?P<silent><silent>.*?</silent>)"
    r"|(?m:^[ ]{0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n(?s:.*?)(?:^[ ]{0,3}(?P=fence)[ \t]*$|\Z))"
    r"|(?P<tick>`+)(?!`)(?s:.*?)(?<!`)(?P=tick)(?!`)",
    re.IGNORECASE | re.DOTALL,
)


def without_silent(reply: str) -> str:
    """The reply without its <silent> notes outside code."""
    if "<silent" not in reply.lower():
        return reply
    return SILENT_OR_CODE.sub(lambda m: "" if m.group("silent") else m.group(0), reply)


HEADINGS = (
    "# 6. Now",
    "## Current step",
    "## Progress",
    "## Waiting on",
    "## Next steps",
    "## Pitfalls",
    "## Exact references",
)
TEMPLATE = """<checkpoint>
# 6. Now
## Current step
## Progress
### Done
### In progress
### Blocked or open
## Waiting on
## Next steps
## Pitfalls
## Exact references
</checkpoint>"""
REFERENCES = "## Exact references"
_BACKTICKS = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"^(?:~|\.{0,2})/?[\w.@+-]+(?:/[\w.@+-]+)+/?$|^[\w@+-]+\.[A-Za-z][\w]{0,7}$")
_ID = re.compile(r"^[A-Za-z][\w]*[_-][\w-]*\d[\w-]*$")
_URL = re.compile(r"^https?://\S+$")


@dataclass(frozen=True)
class Extracted:
    """The NOW of a reply, or the problems that make it unusable."""

    now: str | None
    problems: tuple[str, ...]


def extract(reply: str, min_tokens: int) -> Extracted:
    """Exactly one opening and one closing tag, in order, without attributes, long enough."""
    text = without_silent(reply)
    tags = list(TAG.finditer(text))
    if not tags:
        return Extracted(None, ("the reply has no <checkpoint> block",))
    shape = [(m.group(1) == "/", bool(m.group(2).strip())) for m in tags]
    if shape != [(False, False), (True, False)]:
        if len(tags) == 1 and shape[0][0] is False:
            return Extracted(None, ("the <checkpoint> block is not closed",))
        return Extracted(
            None,
            (
                "its <checkpoint> and </checkpoint> tags do not form exactly one block"
                " (write each tag once, on its own line, and do not mention them elsewhere)",
            ),
        )
    body = text[tags[0].end() : tags[1].start()].strip()
    if not body.strip():
        return Extracted(None, ("the <checkpoint> block is empty",))
    size = estimate(body)
    if size < min_tokens:
        problem = f"the checkpoint is too short: about {size} tokens, at least {min_tokens} needed"
        return Extracted(None, (problem,))
    return Extracted(body, ())


def too_long(now: str, most: int) -> str | None:
    """The problem of a NOW over ``most`` tokens, for the repair request."""
    size = estimate(now)
    if size <= most:
        return None
    return f"the now is about {size} tokens, at most {most}: condense it"


def shown(now: str, most: int, pointer: str) -> str:
    """The NOW as a checkpoint shows it: whole, or cut at a line with where the rest is."""
    if estimate(now) <= most:
        return now
    note = f"[This now continues; the whole of it is in the record: {pointer}]"
    room = (most - estimate(note) - 1) * 4
    kept: list[str] = []
    for line in now.splitlines():
        room -= len(line.encode("utf-8")) + 1
        if room < 0:
            break
        kept.append(line)
    return "\n".join([*kept, note])


def missing_headings(now: str) -> list[str]:
    lines = {ln.rstrip() for ln in now.splitlines()}
    return [h for h in HEADINGS if h not in lines]


def references(now: str) -> list[str]:
    """Paths, ids, commands and links quoted under ``## Exact references``."""
    lines = now.splitlines()
    try:
        start = [ln.rstrip() for ln in lines].index(REFERENCES) + 1
    except ValueError:
        return []
    found: list[str] = []
    for line in lines[start:]:
        if line.startswith("## ") or line.startswith("# "):
            break
        quoted = _BACKTICKS.findall(line)
        found.extend(q.strip() for q in quoted)
        for token in _BACKTICKS.sub(" ", line).split():
            bare = token.strip(",;:()[]{}\"'").rstrip(".")
            if _PATH.match(bare) or _ID.match(bare) or _URL.match(bare):
                found.append(bare)
    return list(dict.fromkeys(f for f in found if f))


def flag_references(now: str, occurs: Callable[[str], bool]) -> list[str]:
    """References of the NOW that occur nowhere in the record: likely invented."""
    return [ref for ref in references(now) if not occurs(ref)]
