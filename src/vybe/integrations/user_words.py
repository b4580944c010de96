"""The person's own messages, verbatim, chosen to fit a budget: what compaction must not lose.

Choice order: the first message always; then messages that set direction, constraints,
preferences or permissions, newest first; then the other substantive ones, newest first;
acknowledgements ("continue", "ok") last. The chosen ones are shown in the order they were
typed. A message that does not fit whole is cut, and the cut says which record entry holds
all of it.
"""

from __future__ import annotations

import re
from collections import namedtuple

from vybe.context.tokens import estimate
from vybe.store.record import MessageRow

TOKEN_BUDGET = 3000
MIN_CUT_TOKENS = 60
HEADER_TOKENS = 20  # the "--- #seq time" line above each message

ACK = re.compile(
    r"^\s*(ok(ay)?|k|yes|yep|yeah|sure|go( on| ahead)?|continue|proceed|next|thanks?( you)?|"
    r"thx|great|good|nice|perfect|lgtm|do it|carry on|keep going|sounds good|👍)[\s.!]*$",
    re.IGNORECASE,
)
DIRECTION = re.compile(
    r"\b(must|never|always|don'?t|do not|should|shouldn'?t|prefer|please|make sure|only|"
    r"instead|avoid|allowed?|permission|you (can|may)|not allowed|goal|want|need|require|"
    r"rule|important|remember|stop|keep|use)\b",
    re.IGNORECASE,
)


class Chosen(namedtuple("Chosen", "row text cut")):
    """One message kept for the budget, whole or cut."""

    __slots__ = ()


def rank(rows: list[MessageRow]) -> list[MessageRow]:
    """The order in which messages claim the budget."""
    if not rows:
        return []
    first, rest = rows[0], list(reversed(rows[1:]))
    direction = [r for r in rest if not ACK.match(r.text) and DIRECTION.search(r.text)]
    acks = [r for r in rest if ACK.match(r.text)]
    other = [r for r in rest if r not in direction and r not in acks]
    return [first, *direction, *other, *acks]


def _cut_note(row: MessageRow) -> str:
    return f"\n[cut: the whole message is record entry #{row.seq} of session {row.session_id}]"


def _cut(row: MessageRow, tokens: int) -> str:
    """The longest prefix (in characters) whose estimate, with the note, fits ``tokens``."""
    note = _cut_note(row)
    room = tokens - estimate(note)
    low, high = 0, len(row.text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate(row.text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return row.text[:low] + note


def choose(rows: list[MessageRow], budget: int = TOKEN_BUDGET) -> list[Chosen]:
    """Pick within ``budget`` tokens; returned in the order the person typed them."""
    left, chosen = budget, []
    for row in rank(rows):
        cost = estimate(row.text) + HEADER_TOKENS
        if cost <= left:
            chosen.append(Chosen(row, row.text, False))
            left -= cost
        elif left >= MIN_CUT_TOKENS + HEADER_TOKENS:
            chosen.append(Chosen(row, _cut(row, left - HEADER_TOKENS), True))
            break
    return sorted(chosen, key=lambda c: c.row.seq)


def render(chosen: list[Chosen], total: int) -> str:
    """The section, each message under a header line, its text exactly as typed."""
    if not chosen:
        return ""
    lines = [
        f"## The user's words (verbatim, {len(chosen)} of {total} messages, from the vybe record)"
    ]
    for item in chosen:
        lines.append(f"--- #{item.row.seq} {item.row.created_at}")
        lines.append(item.text)
    return "\n".join(lines)
