"""The MEMO: user messages the model keeps by ticking them; their text comes from the record.

Better than the reference: ``[X]`` counts as ``[x]``; fitting the kept messages to a budget
is done when a request is built, so a small fallback never shrinks them for good; the newest
unticked candidates are offered again, so one unticking is not a permanent loss.

Bounded however long the session: the stored memo keeps at most ``kept_bound(total)`` ticked
messages (the first and the newest, as many as could be shown whole at MARK_TOKENS each; the
others stay in the record under their numbers) and the REOFFER_UNCHECKED newest released.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vybe.context.budget import cut, estimate
from vybe.context.record import MessageRow
from vybe.context.types import MemoMark
from vybe.text import ELLIPSIS, shorten

LINE = re.compile(r"^- \[( |x|X)\] \(#(\d+)\) ")
PREVIEW_CHARS = 80
REOFFER_UNCHECKED = 20
MIN_SHARE = 40
MARK_TOKENS = 4
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
    """memo.md: one ``- [ ] (#seq) preview`` line per candidate."""
    lines = [
        f"- [{'x' if m.checked else ' '}] (#{m.seq}) {preview(texts.get(m.seq, ''))}" for m in marks
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
            marks.append(MemoMark(int(match.group(2)), match.group(1) in "xX"))
    return marks


def kept_bound(total: int) -> int:
    """How many ticked messages a memo of ``total`` tokens keeps: more than it ever shows."""
    return max(total // MARK_TOKENS, 2)


def merge(
    previous: tuple[MemoMark, ...], offered: list[MemoMark], total: int
) -> tuple[MemoMark, ...]:
    """The stored memo: the offered marks as decided, then bounded (first and newest kept)."""
    decided = {m.seq: m for m in offered}
    marks = sorted([*(m for m in previous if m.seq not in decided), *decided.values()])
    checked = [m for m in marks if m.checked]
    bound = kept_bound(total)
    if len(checked) > bound:
        checked = [checked[0], *checked[len(checked) - bound + 1 :]]
    released = [m for m in marks if not m.checked][-REOFFER_UNCHECKED:]
    return tuple(sorted(checked + released))


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


def fit(texts: list[tuple[int, str]], per_message: int, total: int) -> tuple[list[Kept], list[int]]:
    """Kept messages within budget, and the numbers left out (still in the record).

    Each is cut to ``per_message``; over ``total`` they are shortened evenly; when even an
    even share would be under MIN_SHARE tokens, the first and the newest that fit are kept.
    """
    sizes = [min(estimate(t), per_message) for _, t in texts]
    cap = per_message if sum(sizes) <= total else _share(sizes, total)
    if cap >= MIN_SHARE or not texts:
        return [_shorten(s, t, cap) for s, t in texts], []
    chosen = [0]
    room = total - sizes[0]
    for index in range(len(texts) - 1, 0, -1):
        if sizes[index] > room:
            break
        chosen.append(index)
        room -= sizes[index]
    chosen.sort()
    kept = [_shorten(*texts[i], per_message) for i in chosen]
    taken = set(chosen)
    return kept, [seq for i, (seq, _) in enumerate(texts) if i not in taken]
