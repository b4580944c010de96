"""The person's own messages, verbatim, chosen to fit a budget: what compaction must not lose.

Choice order: the first message always; then messages that set direction, constraints,
preferences or permissions, newest first; then the other substantive ones, newest first;
acknowledgements ("continue", "ok") last. The chosen ones are shown in the order they were
typed. A message that does not fit whole is cut, and the cut says which record entry holds
all of it.
"""

from __future__ import annotations

from vybe.context.tokens import estimate
from vybe.store.record import MessageRow
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

TOKEN_BUDGET = 3000
# The newest messages a choice reads, with the first: what a full budget can hold (a
# 20-token header each). Reading them all would make a compaction's hook grow with the
# session (benchmarks/hooks.py --typed); the older ones stay in the record, and the
# receipt says so.
WINDOW = 150
MIN_CUT_TOKENS = 60
HEADER_TOKENS = 20  # the "--- #seq time" line above each message

# An acknowledgement alone ("ok", "Go on.", "thanks!"), and the words that set direction.
# Matched with str methods, not regular expressions: re is kept off the hook path.
ACKS = frozenset(
    [
        "ok",
        "okay",
        "k",
        "yes",
        "yep",
        "yeah",
        "sure",
        "go",
        "go on",
        "go ahead",
        "continue",
        "proceed",
        "next",
        "thank",
        "thanks",
        "thank you",
        "thanks you",
        "thx",
        "great",
        "good",
        "nice",
        "perfect",
        "lgtm",
        "do it",
        "carry on",
        "keep going",
        "sounds good",
        "👍",
    ]
)
ACK_CHARS = max(len(ack) for ack in ACKS)  # a longer message is no acknowledgement
DIRECTION = tuple(
    [
        "must",
        "never",
        "always",
        "don't",
        "dont",
        "do not",
        "should",
        "shouldn't",
        "shouldnt",
        "prefer",
        "please",
        "make sure",
        "only",
        "instead",
        "avoid",
        "allowe",  # as the pattern had it: allowed?
        "allowed",
        "permission",
        "you can",
        "you may",
        "not allowed",
        "goal",
        "want",
        "need",
        "require",
        "rule",
        "important",
        "remember",
        "stop",
        "keep",
        "use",
    ]
)


def is_ack(text: str) -> bool:
    """Only an acknowledgement, in any case, with trailing dots, bangs or spaces."""
    core = text.strip()
    end = len(core)
    while end and (core[end - 1] in ".!" or core[end - 1].isspace()):
        end -= 1
    return end <= ACK_CHARS and core[:end].lower() in ACKS


def _in_a_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what re's \w is


# ASCII text (most of it) is split into its words once, as bytes: one translate lowers it
# and turns every other character into a space (bytes.translate is one table lookup a
# character; str.translate with a dict, a dict lookup). Each direction word is then a set
# lookup, and a phrase is looked for only where its first word is (a long session's
# messages mostly hold none, and 31 finds each were a compaction's hook's biggest cost).
_SPLIT = bytes(ord(chr(c).lower()) if c < 128 and _in_a_word(chr(c)) else 32 for c in range(256))
_WORDS = frozenset(p.encode() for p in DIRECTION if p.isalnum())
_PHRASES = tuple(
    (phrase, phrase.encode().translate(_SPLIT).split()[0])
    for phrase in DIRECTION
    if not phrase.isalnum()
)


def sets_direction(text: str) -> bool:
    """A direction word or phrase, in any case, as a whole word (not "usefully"). Found with
    str and bytes methods, not a regular expression: importing re (with enum) and compiling
    the alternation cost a compaction's hook more than ranking a long session's words."""
    if not text.isascii():
        return _whole_word_in(text.lower(), DIRECTION)
    words = set(text.encode().translate(_SPLIT).split())
    if not _WORDS.isdisjoint(words):
        return True
    phrases = [phrase for phrase, first in _PHRASES if first in words]
    return bool(phrases) and _whole_word_in(text.lower(), phrases)


def _whole_word_in(lowered: str, phrases: Iterable[str]) -> bool:
    """Whether one of ``phrases`` is in ``lowered`` with no word character either side."""
    for phrase in phrases:
        start = lowered.find(phrase)
        while start >= 0:
            end = start + len(phrase)
            if (start == 0 or not _in_a_word(lowered[start - 1])) and (
                end == len(lowered) or not _in_a_word(lowered[end])
            ):
                return True
            start = lowered.find(phrase, start + 1)
    return False


class Chosen(Row):
    """One message kept for the budget, whole or cut."""

    __slots__ = ()
    row: MessageRow
    text: str
    cut: bool


def ranked(rows: list[MessageRow], wanted: Callable[[int], bool]) -> Iterator[int]:
    """The order (as positions in ``rows``) in which messages claim the budget, each
    classified only when it is reached and ``wanted`` (it could still be taken): a long
    session's messages that no longer fit are never classified."""
    if not rows:
        return
    yield 0
    other: list[int] = []
    acks: list[int] = []
    for index in range(len(rows) - 1, 0, -1):  # newest first, each classified once
        if not wanted(index):
            continue
        text = rows[index].text
        if is_ack(text):
            acks.append(index)
        elif sets_direction(text):
            yield index
        else:
            other.append(index)
    yield from other
    yield from acks


class _Room:
    """What is left of the budget; a message (its cost, header included) is taken whole,
    cut, or not at all."""

    def __init__(self, budget: int) -> None:
        self.left = budget
        self.share = max(MIN_CUT_TOKENS, budget // 3)

    def cut_room(self) -> int:
        return min(self.left - HEADER_TOKENS, self.share)

    def fits(self, cost: int) -> bool:
        """Whether a message of ``cost`` could be taken now; the room only shrinks, so once
        it cannot, it never can."""
        return cost <= self.left or self.cut_room() >= MIN_CUT_TOKENS

    def take(self, row: MessageRow, cost: int) -> Chosen | None:
        if cost <= self.left:
            self.left -= cost
            return Chosen(row, row.text, False)
        room = self.cut_room()
        if room < MIN_CUT_TOKENS:
            return None
        self.left -= room + HEADER_TOKENS
        return Chosen(row, _cut(row, room), True)


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
    """Pick within ``budget`` tokens; returned in the order the person typed them.

    A message too long to keep whole is cut to at most a third of the budget, and the
    choice goes on: a pasted log must not crowd out the short rule typed before it. When
    every message fits whole, all are kept and none is ranked."""
    costs = [estimate(row.text) + HEADER_TOKENS for row in rows]
    if sum(costs) <= budget:
        return sorted((Chosen(row, row.text, False) for row in rows), key=lambda c: c.row.seq)
    room, chosen = _Room(budget), []
    for index in ranked(rows, lambda i: room.fits(costs[i])):
        taken = room.take(rows[index], costs[index])
        if taken is not None:
            chosen.append(taken)
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
