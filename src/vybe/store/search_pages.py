"""How a search pages, for every store: windows walked newest first, each handed out best
first, no hit twice and none left out (the contract of `vybe search` in docs/cli.md).

Each source (messages, events) is walked by id, newest first, in one read of the ids left:
one statement, because the full-text engine's cost is mostly per statement (bm25 counts
every row holding each term; a trigram query sets up a long posting list per trigram), so
a walk cut into spans of ids paid it once a span. A page opens a *window*: per source, the
ids from where the last window ended down to where this one's hits end. A words query's
window holds the newest ``want`` matches, messages and events merged by time; the page
hands out the best ``limit`` of them, and the pages after it the rest, best first, until the
window is spent and the next one opens below it. The cursor says, per source, where the
walk is (ids above it are spent, or newer than the first page: new rows never enter it) and,
while a window is open, its bounds, its hits' count and checksum, and which of them were
handed out. Scores are read again on every page and may drift as rows arrive (bm25 counts
the whole index); the set a page chooses from cannot.

The time bound: a read past it stops (the store looks between rows) and answers the matches
it found, every one from where it began down to the last. A read stopped before it found
any, or a source whose read would start past the bound, reads the first ``SPAN`` ids
instead, whatever the clock says, so every page makes progress. A stopped window is cut to
the newest ``limit`` hits it found, all handed out at once, so the next page goes on exactly
where this one stopped. A window read again past the bound hands out nothing
(``complete: false``) and the cursor stays where it was.
"""

from __future__ import annotations

import base64
import heapq
import itertools
import json
import struct
import zlib

from vybe.errors import InvalidInput, VybeError
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SPAN = 2048
FIRST_SECONDS = 1.5  # the bound of a source's first span, read whatever the page's clock says
CURSOR_MAX = 4096  # characters: a window of 1,000 hits needs about 300
_VERSION = 1


class Hit(Row):
    """A match: the row's id, 0 for a message or 1 for an event, its score (lower ranks
    higher) and when it was written."""

    __slots__ = ()
    id: int
    parity: int
    score: float
    created_at: str

    @property
    def hit(self) -> int:
        """The hit number both stores use: 2·id for a message, 2·id + 1 for an event."""
        return 2 * self.id + self.parity


class Page(Row):
    """The page's hits in order; the window's size when it was full (words only); when
    the time bound stopped the page, the time from which rows were searched; the cursor of
    the next page, or None after the last."""

    __slots__ = ()
    hits: list[Hit]
    ranked_newest: int | None
    searched_since: str | None
    next_cursor: str | None


class _Walk:
    """One source's place: ids above ``high`` are spent; an open window covers ``low`` ..
    ``high``, holds ``n`` hits (checksum ``crc``), ``bits`` saying which were handed out."""

    __slots__ = ("bits", "bottom", "crc", "high", "low", "n", "parity")

    def __init__(self, parity: int, high: int, bottom: int) -> None:
        self.parity, self.high, self.bottom = parity, high, bottom
        self.low: int | None = None
        self.n, self.crc, self.bits = 0, 0, b""

    @property
    def spent(self) -> bool:
        return self.low is None and self.high < self.bottom


def _crc(hits: list[Hit]) -> int:
    return zlib.crc32(struct.pack(f"<{len(hits)}q", *[h.id for h in hits]))


def fingerprint(values: list[Any]) -> int:
    """A short number for what a cursor belongs to."""
    return zlib.crc32(json.dumps(values).encode())


def _refused(reason: str) -> InvalidInput:
    return InvalidInput(
        f"the cursor is not one this search handed out: {reason}",
        context={"field": "cursor", "reason": reason},
        suggested_action="pass the next_cursor of the last page of the same search, or search"
        " again without one",
    )


def _encode(query: Any, walks: list[_Walk]) -> str:
    """The cursor of the next page: the query it belongs to, its time range, the walks."""
    state: list[Any] = [_VERSION, query.printed(), query.since, query.until]
    for w in walks:
        bits = base64.b64encode(w.bits).decode() if w.low is not None else ""
        state.append([w.parity, w.high, w.low, w.n, w.crc, bits])
    return base64.urlsafe_b64encode(json.dumps(state, separators=(",", ":")).encode()).decode()


def _decode(query: Any, bounds: dict[int, tuple[int, int]]) -> tuple[Any, list[_Walk]]:
    try:
        if len(query.cursor) > CURSOR_MAX:
            raise ValueError("too long")
        version, printed, since, until, *sources = json.loads(
            base64.urlsafe_b64decode(query.cursor.encode("ascii"))
        )
    except (ValueError, TypeError, UnicodeError) as exc:
        raise _refused(f"it does not decode ({type(exc).__name__})") from None
    if version != _VERSION or printed != query.printed():
        raise _refused("it belongs to another query or other filters")
    try:
        if sorted(source[0] for source in sources) != sorted(bounds):
            raise _refused("it walks other sources than this query searches")
        walks = []
        for parity, high, low, n, crc, bits in sources:
            walk = _Walk(int(parity), int(high), bounds[parity][0])
            if low is not None:
                walk.low, walk.n, walk.crc = int(low), int(n), int(crc)
                walk.bits = base64.b64decode(bits, validate=True)
                if len(walk.bits) != (walk.n + 7) // 8:
                    raise ValueError("the handed-out bits do not fit the window")
            walks.append(walk)
        if not all(isinstance(t, str | None) for t in (since, until)):
            raise TypeError("a time is not text")
    except (ValueError, TypeError, KeyError, IndexError, UnicodeError) as exc:
        raise _refused(f"it does not decode ({type(exc).__name__})") from None
    return query._replace(since=since, until=until), walks


def resume(query: Any, bounds: dict[int, tuple[int, int]]) -> tuple[Any, list[_Walk]]:
    """The query a page runs (a cursor keeps its first page's time range) and the walks it
    goes on with: each source from its newest row (``bounds``: per source, the lowest and
    highest id the query can find), or where the cursor says. A cursor of another search,
    or none at all, is INVALID_INPUT."""
    if query.cursor is None:
        return query, [_Walk(parity, high, low) for parity, (low, high) in sorted(bounds.items())]
    return _decode(query, bounds)


def _timeout() -> VybeError:
    return VybeError(
        f"the search could not read even its first span within {FIRST_SECONDS:g} s",
        code="QUERY_TIMEOUT",
        context={"seconds": FIRST_SECONDS},
        suggested_action="search for rarer words, or narrow by --session-id, --type, --since",
    )


class Run:
    """One page's reads: ``read(parity, high, low, want, first)`` gives a source's matches
    with ids from ``high`` down to ``low``, newest first, at most ``want``, and whether the
    time bound stopped it (the page's bound; for a source's ``first`` span, FIRST_SECONDS of
    its own); ``expired()`` says the page's bound has passed; ``since(parity, id)`` is when
    the row ``id`` (or the next one above it) was written."""

    def __init__(
        self,
        read: Callable[[int, int, int, int, bool], tuple[list[Hit], bool]],
        expired: Callable[[], bool],
        since: Callable[[int, int], str],
    ) -> None:
        self.read, self.expired, self.since = read, expired, since
        self.stopped: dict[int, int] = {}  # parity -> the lowest id searched, when stopped

    def walk(self, parity: int, high: int, low: int, want: int) -> tuple[list[Hit], int]:
        """A source's newest ``want`` matches in ``low`` .. ``high`` and the lowest id
        searched (everything from there to ``high`` was): one read of them all, or when the
        bound stops that before it finds any, the first ``SPAN`` ids."""
        rows: list[Hit] = []
        stopped, bottom = True, low
        if not self.expired():
            rows, stopped = self.read(parity, high, low, want, False)
        if stopped and not rows:
            bottom = max(low, high - SPAN + 1)
            rows, stopped = self.read(parity, high, bottom, want, True)
            if stopped and not rows:
                raise _timeout()
        reached = rows[-1].id if stopped or len(rows) >= want else bottom
        if reached > low and len(rows) < want:
            self.stopped[parity] = reached
        return rows, reached

    def searched_since(self) -> str | None:
        """From when every source was searched, when the time bound stopped one."""
        if not self.stopped:
            return None
        return max(self.since(parity, reached) for parity, reached in self.stopped.items())


def _in_order(streams: dict[int, list[Hit]], most: int | None = None) -> list[Hit]:
    """The newest ``most`` hits of all sources (every one by default), merged by when each
    was written, each source's taken from its head: always a prefix of its own order."""
    merged = heapq.merge(*streams.values(), key=_written, reverse=True)
    return list(itertools.islice(merged, most))


def _written(hit: Hit) -> tuple[str, int]:
    return hit.created_at, hit.hit


def _open(run: Run, walks: list[_Walk], want: int, limit: int) -> dict[int, list[Hit]]:
    """A new window below each source's place: the newest ``want`` matches, or when the
    time bound stops the walk, the newest ``limit`` it found."""
    streams, reached = {}, {}
    for w in walks:
        if not w.spent:
            streams[w.parity], reached[w.parity] = run.walk(w.parity, w.high, w.bottom, want + 1)
    order = _in_order(streams, limit if run.stopped else want)
    for w in walks:
        if w.parity not in streams:
            continue
        rows = streams[w.parity]
        count = sum(1 for h in order if h.parity == w.parity)
        kept = rows[:count]
        if count < len(rows):
            w.low = kept[-1].id if kept else w.high + 1
        else:
            w.low = reached[w.parity]
        w.n, w.crc, w.bits = count, _crc(kept), bytes((count + 7) // 8)
        streams[w.parity] = kept
    return streams


def _reread(run: Run, walks: list[_Walk]) -> dict[int, list[Hit]] | None:
    """The open window's hits again, or None when the time bound stopped the reading."""
    streams = {}
    for w in walks:
        if w.low is None:
            continue
        rows, _ = run.walk(w.parity, w.high, w.low, w.n + 1)
        if run.stopped:
            return None
        if len(rows) != w.n or _crc(rows) != w.crc:
            raise VybeError(
                "the rows this search was paging through changed (events pruned, or old rows"
                " indexed by vybe upgrade) since its first page",
                code="VERSION_CONFLICT",
                context={"field": "cursor"},
                suggested_action="search again without --cursor",
            )
        streams[w.parity] = rows
    return streams


def _handed(w: _Walk, i: int) -> bool:
    return bool(w.bits[i // 8] >> (i % 8) & 1)


def _hand_out(walks: list[_Walk], streams: dict[int, list[Hit]], limit: int) -> list[Hit]:
    """The best ``limit`` hits of the window not handed out yet (equal scores newest first),
    marked handed out; a spent window closes, and each source's place moves below it."""
    by_parity = {w.parity: w for w in walks}
    position = {(h.parity, h.id): i for s in streams.values() for i, h in enumerate(s)}
    left = [
        h for h in _in_order(streams) if not _handed(by_parity[h.parity], position[h.parity, h.id])
    ]
    page = sorted(left, key=lambda h: h.score)[:limit]
    for h in page:
        w, i = by_parity[h.parity], position[h.parity, h.id]
        w.bits = w.bits[: i // 8] + bytes([w.bits[i // 8] | 1 << (i % 8)]) + w.bits[i // 8 + 1 :]
    if len(page) == len(left):
        for w in walks:
            if w.low is not None:
                w.high, w.low, w.n, w.crc, w.bits = w.low - 1, None, 0, 0, b""
    return page


def page(run: Run, walks: list[_Walk], query: Any) -> Page:
    """One page of ``query`` (its ``window``, ``limit``, ``printed()``): the open window's
    next best hits, or a new window's best."""
    want, limit = query.window, query.limit
    if any(w.low is not None for w in walks):
        streams = _reread(run, walks)
        if streams is None:
            return Page([], None, run.searched_since(), _encode(query, walks))
    else:
        streams = _open(run, walks, want, limit)
    size = sum(w.n for w in walks)
    hits = _hand_out(walks, streams, limit)
    done = all(w.spent for w in walks)
    return Page(
        hits,
        want if size >= want else None,
        run.searched_since(),
        None if done else _encode(query, walks),
    )
