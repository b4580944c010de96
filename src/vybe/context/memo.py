"""The MEMO: user messages the model keeps by ticking them; their text comes from the record.

Better than the reference: ``[X]`` counts as ``[x]``; fitting the kept messages to a budget
is done when a request is built, so a small fallback never shrinks them for good; the newest
unticked candidates are offered again, so one unticking is not a permanent loss.

The messages the model ticked come first wherever the memo meets its budget (what is stored,
what is shown): they are fitted as if no other were kept, and the messages a fallback kept
without the model choosing them (every candidate, when memo.md changed beyond its boxes) fill
the room left, so they are the first to be shortened or left out. A fallback therefore never
keeps fewer of the ticked messages than the checkpoint before it kept. memo.md shows ``[x]``
only on ticked messages: one a fallback kept is offered again for the model to decide.

Bounded however long the session: the stored memo keeps the kept messages a checkpoint
could ever show (in each of the two groups the first, then the newest while they fit the
budget whole or could each still get MIN_SHARE tokens; the others stay in the record under
their numbers) and the REOFFER_UNCHECKED newest released ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vybe.context.budget import Budget, cut, estimate
from vybe.context.checkpoints import MemoMark
from vybe.context.record import MessageRow
from vybe.text import ELLIPSIS, shorten

LINE = re.compile(r"^- \[( |x|X)\] \(#(\d+)\) ")
PREVIEW_CHARS = 80
REOFFER_UNCHECKED = 20
MIN_SHARE = 40
FRAME_TOKENS = 10  # what a shown message's <user-message> frame costs besides its text
CUT_NOTE = "[cut short; the whole message is #{seq} in the record]"


def preview(text: str) -> str:
    flat = " ".join(text.split())
    return shorten(flat, PREVIEW_CHARS + len(ELLIPSIS))


def offer(previous: tuple[MemoMark, ...], moved: list[MessageRow]) -> list[MemoMark]:
    """This checkpoint's candidates: kept ones ticked, the newest released ones, new user rows."""
    known = {m.seq for m in previous}
    checked = [m for m in previous if m.checked]
    released = [m for m in previous if not m.checked][-REOFFER_UNCHECKED:]
    new = [MemoMark(r.seq, False) for r in moved if r.type == "user" and r.seq not in known]
    return sorted(checked + released + new, key=lambda m: m.seq)


def render_file(marks: list[MemoMark], texts: dict[int, str]) -> str:
    """memo.md: one ``- [ ] (#seq) preview`` line per candidate, ``[x]`` where the model ticked."""
    lines = [
        f"- [{'x' if m.ticked else ' '}] (#{m.seq}) {preview(texts.get(m.seq, ''))}" for m in marks
    ]
    return "\n".join(lines) + "\n" if lines else "(no candidates)\n"


def _unboxed(line: str) -> str:
    return LINE.sub(lambda m: f"- [] (#{m.group(2)}) ", line, count=1)


def read_file(original: str, edited: str) -> list[MemoMark] | None:
    """The marks of an edited memo.md, or None when more than a checkbox changed."""
    before = [ln.rstrip() for ln in original.splitlines() if ln.strip()]
    after = [ln.rstrip() for ln in edited.splitlines() if ln.strip()]
    if len(before) != len(after):
        return None
    marks = []
    for old, new in zip(before, after, strict=True):
        match = LINE.match(new)
        if _unboxed(old) != _unboxed(new) or (LINE.match(old) is None) != (match is None):
            return None
        if match:
            ticked = match.group(1) in "xX"
            marks.append(MemoMark(int(match.group(2)), ticked, ticked))
    return marks


def _bounded(
    marks: list[MemoMark], sizes: dict[int, int], total: int, most: int, first: bool
) -> tuple[list[MemoMark], int]:
    """The first (always, when ``first``; else if it fits), then the newest while they fit
    ``total`` whole or number at most total / MIN_SHARE, never more than ``most``; and the
    tokens they take."""
    kept: list[MemoMark] = []
    if marks and (first or (most > 0 and sizes[marks[0].seq] <= total)):
        kept.append(marks[0])
    used = sum(sizes[m.seq] for m in kept)
    for mark in reversed(marks[1:]):
        size = sizes[mark.seq]
        over = used + size > total and len(kept) >= max(total, 0) // MIN_SHARE
        if over or len(kept) >= most:
            break
        kept.append(mark)
        used += size
    return kept, used


def showable(
    checked: list[MemoMark], texts: dict[int, str], per_message: int, total: int
) -> list[MemoMark]:
    """The kept marks a checkpoint could show, never more than total / FRAME_TOKENS: the
    ticked ones as if alone (the first, then the newest while they fit ``total`` whole or
    could each be shortened evenly to MIN_SHARE), then the fallback's in the room left."""
    sizes = {m.seq: min(estimate(texts.get(m.seq, "")), per_message) for m in checked}
    most = total // FRAME_TOKENS
    ticked = [m for m in checked if m.ticked]
    kept, used = _bounded(ticked, sizes, total, most, first=True)
    rest = [m for m in checked if not m.ticked]
    more, _ = _bounded(rest, sizes, total - used, most - len(kept), first=not kept)
    return sorted(kept + more)


def merge(
    previous: tuple[MemoMark, ...],
    offered: list[MemoMark],
    texts: dict[int, str],
    budget: Budget,
) -> tuple[MemoMark, ...]:
    """The stored memo: the offered marks as decided, then bounded (ticked ones first)."""
    decided = {m.seq: m for m in offered}
    marks = sorted([*(m for m in previous if m.seq not in decided), *decided.values()])
    checked = [m for m in marks if m.checked]
    kept = showable(checked, texts, budget.memo_per_message, budget.memo_total)
    released = [m for m in marks if not m.checked][-REOFFER_UNCHECKED:]
    return tuple(sorted(kept + released))


def checked_tokens(
    marks: list[MemoMark] | tuple[MemoMark, ...], texts: dict[int, str], per_message: int
) -> int:
    return sum(min(estimate(texts.get(m.seq, "")), per_message) for m in marks if m.checked)


@dataclass(frozen=True)
class Kept:
    """A kept user message as a checkpoint shows it."""

    seq: int
    text: str
    cut: bool = False


def _shorten(seq: int, text: str, cap: int) -> Kept:
    if estimate(text) <= cap:
        return Kept(seq, text)
    note = CUT_NOTE.format(seq=seq)
    return Kept(seq, cut(text, max(cap - estimate(note) - 1, 0)) + "\n" + note, cut=True)


def _share(sizes: list[int], total: int) -> int:
    """The largest common cap with sum(min(size, cap)) <= total (water-filling)."""
    remaining, count = total, len(sizes)
    for size in sorted(sizes):
        if size * count <= remaining:
            remaining -= size
            count -= 1
        else:
            return remaining // count
    return max(sizes, default=0)


def _fit_group(
    texts: list[tuple[int, str]], per_message: int, total: int, first: bool
) -> tuple[list[Kept], list[int]]:
    """One group within ``total``: each cut to ``per_message``; over ``total`` shortened
    evenly; when even an even share would be under MIN_SHARE tokens, the first (always, when
    ``first``; else only if it fits) and the newest that fit are kept whole."""
    if not texts:
        return [], []
    sizes = [min(estimate(t), per_message) for _, t in texts]
    cap = per_message if sum(sizes) <= total else _share(sizes, max(total, 0))
    if cap >= MIN_SHARE:
        return [_shorten(s, t, cap) for s, t in texts], []
    chosen = [0] if first or sizes[0] <= total else []
    room = total - sum(sizes[i] for i in chosen)
    for index in range(len(texts) - 1, 0, -1):
        if sizes[index] > room:
            break
        chosen.append(index)
        room -= sizes[index]
    chosen.sort()
    kept = [_shorten(*texts[i], per_message) for i in chosen]
    taken = set(chosen)
    return kept, [seq for i, (seq, _) in enumerate(texts) if i not in taken]


def fit(
    texts: list[tuple[int, str]],
    per_message: int,
    total: int,
    ticked: frozenset[int] | set[int] = frozenset(),
) -> tuple[list[Kept], list[int]]:
    """Kept messages within budget, and the numbers left out (still in the record), in order.

    The ``ticked`` numbers are fitted first, as if no other were kept; the others (kept by a
    fallback) share the room they leave, so they are shortened or left out first.
    """
    kept, left = _fit_group([(s, t) for s, t in texts if s in ticked], per_message, total, True)
    room = total - sum(estimate(k.text) for k in kept)
    rest = [(s, t) for s, t in texts if s not in ticked]
    more, also = _fit_group(rest, per_message, room, not kept)
    return sorted(kept + more, key=lambda k: k.seq), sorted(left + also)
