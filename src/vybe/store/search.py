"""Full-text search over the record and the event log (the indexes of migration 0008).

A hit's row id says where it lives: 2·id is message ``id``, 2·id + 1 event ``id``. Word
queries (vybe.store.search_syntax, written in FTS5's terms) go to ``search_words`` (bm25
ranking, filters as tag terms); literal queries to ``search_literal`` (trigrams: the text
exactly as written, case folded).

Ranking is bounded: the newest ``window`` matches are ranked (bm25), so a term found in half
a million messages costs what a rare one does; the result says when the window was full.
Literal hits come newest first. Every search is bounded in time (``SECONDS``) and says when
it stopped short.
"""

from __future__ import annotations

import sqlite3

from vybe.errors import InvalidInput
from vybe.store import search_pages, search_syntax
from vybe.store.deadline import Deadline
from vybe.tuples import Row

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.jsonio import JSONObject


class SearchQuery(Row):
    """What to look for and where. ``type`` is a message type or ``event``; ``cursor`` is
    the last page's ``next_cursor`` (vybe.store.search_pages)."""

    __slots__ = ()
    text: str
    literal: bool = False
    session_id: str | None = None
    type: str | None = None
    agent: str | None = None
    project_id: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int = 20
    cursor: str | None = None

    @property
    def window(self) -> int:
        """How many of the newest matches a page chooses from: the page itself for literal
        text (newest first), the ranking window for words."""
        return self.limit if self.literal else max(RANK_WINDOW, self.limit)

    def printed(self) -> int:
        """What a cursor belongs to: the query and its filters (a cursor keeps its first
        page's time range, a duration such as 7d resolved once)."""
        return search_pages.fingerprint(
            [self.text, self.literal, self.session_id, self.type, self.agent, self.project_id]
        )


RANK_WINDOW = 1000
BACKFILL_BATCH = 5000
# Each source's table and the view that says what its rows contribute to the indexes.
_SOURCES = {"messages": "search_messages", "events": "search_events"}


def tag(prefix: str, value: str) -> str:
    """The tag term a trigger wrote for ``value`` (``hex()`` of its UTF-8 bytes)."""
    return prefix + value.encode("utf-8", "surrogatepass").hex().upper()


def _words_match(query: SearchQuery) -> str:
    terms = [f"body : ({search_syntax.fts5(search_syntax.parse(query.text))})"]
    if query.type:
        terms.append(f"tags : tt{query.type}")
    if query.session_id:
        terms.append(f"tags : {tag('ts', query.session_id)}")
    if query.agent:
        terms.append(f"tags : {tag('ta', query.agent)}")
    if query.project_id:
        terms.append(f"tags : {tag('tp', query.project_id)}")
    return " AND ".join(terms)


def _literal_match(query: SearchQuery) -> str:
    return '"' + query.text.replace('"', '""') + '"'


# One source's matches in a range of ids, newest first (FTS5 walks its doclists in descending
# rowid order), fetched a batch of rows at a time: between batches the time bound is looked
# at, and inside one SQLite's progress handler looks.
SECONDS = 1.5
BATCH = 64
_RANGE = """
SELECT {index}.rowid, {rank}, {table}.created_at FROM {index}
JOIN {table} ON {table}.id = {index}.rowid / 2
WHERE {index} MATCH ? AND {index}.rowid BETWEEN ? AND ? AND {index}.rowid % 2 = {parity}
{filters}
ORDER BY {index}.rowid DESC LIMIT ?
"""
_DETAILS = {
    "messages": "SELECT id, session_id, context_seq, type, source, (SELECT shown FROM"
    " search_messages WHERE search_messages.id = messages.id) AS content_text, created_at"
    " FROM messages WHERE id IN ({marks})",
    "events": "SELECT id AS event_id, kind, agent_name, task_id, project_id, message,"
    " created_at FROM events WHERE id IN ({marks})",
}


class Found(Row):
    """One page of hits (each a dict); the window, when more words matched than it ranked;
    when the time bound stopped the search, the time from which rows were searched (older
    ones were not); the cursor of the next page, None after the last."""

    __slots__ = ()
    rows: list[JSONObject]
    ranked_newest: int | None
    searched_since: str | None
    next_cursor: str | None


class _Source(Row):
    __slots__ = ()
    table: str
    alias: str
    parity: int


_MESSAGES = _Source("messages", "m", 0)
_EVENTS = _Source("events", "e", 1)


def sources(query: SearchQuery) -> list[_Source]:
    """The sources a query can find anything in: a session or a message type is only in
    messages, an agent, a project or ``event`` only in events."""
    wanted = []
    if not (query.agent or query.project_id or query.type == "event"):
        wanted.append(_MESSAGES)
    if not (query.session_id or query.type not in (None, "event")):
        wanted.append(_EVENTS)
    return wanted


# A prompt a hook recorded is a user message and a ``user_prompt`` event that names it (its
# metadata's ``record_seq``): where both sources are searched it is one hit, the message's.
RECORDED_PROMPT = (
    "NOT ({table}.kind = 'user_prompt' AND coalesce({table}.metadata, '') LIKE {value})"
)
RECORDED_PROMPT_PATTERN = '%"record_seq"%'


def _filters(query: SearchQuery, source: _Source) -> tuple[str, list[object]]:
    """Conditions on the rows of ``source``: time always, a recorded prompt's event when
    messages are searched too, the rest for literal queries (word queries carry them as tag
    terms)."""
    where: list[str] = []
    params: list[object] = []
    if source is _EVENTS and len(sources(query)) == 2:
        where.append(RECORDED_PROMPT.format(table="events", value="?"))
        params.append(RECORDED_PROMPT_PATTERN)
    for op, value in ((">=", query.since), ("<", query.until)):
        if value:
            where.append(f"{source.table}.created_at {op} ?")
            params.append(value)
    if query.literal and source is _MESSAGES:
        for column, value in (("type", query.type), ("session_id", query.session_id)):
            if value:
                where.append(f"messages.{column} = ?")
                params.append(value)
    if query.literal and source is _EVENTS:
        for column, value in (("agent_name", query.agent), ("project_id", query.project_id)):
            if value:
                where.append(f"events.{column} = ?")
                params.append(value)
    return "".join(" AND " + w for w in where), params


def bounds(conn: Any, query: SearchQuery, source: _Source) -> tuple[int, int]:
    """The ids ``source`` can match in: all of its rows, or one session's."""
    if source is _MESSAGES and query.session_id:
        # Grouped, so that PostgreSQL reads the session's rows by their index: it answers an
        # ungrouped MIN and MAX by walking the primary key from each end past every other
        # session's rows.
        sql = "SELECT MIN(id), MAX(id) FROM messages WHERE session_id = ? GROUP BY session_id"
        row = conn.execute(sql, (query.session_id,)).fetchone()
    else:
        row = (1, conn.execute(f"SELECT MAX(id) FROM {source.table}").fetchone()[0])
    return (1, 0) if row is None or row[1] is None else (row[0], row[1])


class _Bound:
    """SQLite's progress handler over the page's time bound; a source's first span has a
    bound of its own (search_pages: it is read whatever the page's clock says)."""

    def __init__(self, seconds: float) -> None:
        self.page = Deadline(seconds)
        self.now = self.page

    def __call__(self) -> int:
        return self.now()

    def expired(self) -> bool:
        return bool(self.page())


class _Reader:
    """One page's reads of the SQLite indexes (search_pages.Run's ``read`` and ``since``)."""

    def __init__(self, conn: sqlite3.Connection, query: SearchQuery, bound: _Bound) -> None:
        self.conn, self.bound = conn, bound
        if query.literal:
            index, rank, self.match = "search_literal", "0", _literal_match(query)
        else:
            index, rank = "search_words", "bm25(search_words, 1.0, 0.0)"
            self.match = _words_match(query)
        self.sql: dict[int, tuple[str, list[object]]] = {}
        for source in sources(query):
            filters, params = _filters(query, source)
            self.sql[source.parity] = (
                _RANGE.format(
                    index=index,
                    rank=rank,
                    table=source.table,
                    parity=source.parity,
                    filters=filters,
                ),
                params,
            )

    def read(
        self, parity: int, high: int, low: int, want: int, first: bool
    ) -> tuple[list[search_pages.Hit], bool]:
        sql, params = self.sql[parity]
        bound = self.bound
        bound.now = Deadline(search_pages.FIRST_SECONDS) if first else bound.page
        rows: list[tuple[int, float, str]] = []
        cursor = self.conn.cursor()
        try:
            cursor.execute(sql, (self.match, 2 * low + parity, 2 * high + parity, *params, want))
            while batch := cursor.fetchmany(BATCH):
                rows += batch
                if len(batch) == BATCH and len(rows) < want and bound.now():
                    return self._hits(parity, rows), True
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc) and bound.now():
                return self._hits(parity, rows), True
            bound.now.explain(exc)
            raise
        finally:
            cursor.close()
            bound.now = bound.page
        return self._hits(parity, rows), False

    @staticmethod
    def _hits(parity: int, rows: list[tuple[int, float, str]]) -> list[search_pages.Hit]:
        return [search_pages.Hit(hit // 2, parity, score, at) for hit, score, at in rows]

    def since(self, parity: int, row_id: int) -> str:
        return since(self.conn, parity, row_id)


def since(conn: Any, parity: int, row_id: int) -> str:
    """When the row ``row_id`` of a source (or the first one after it) was written; "" for
    none."""
    table = _MESSAGES.table if parity == _MESSAGES.parity else _EVENTS.table
    row = conn.execute(
        f"SELECT created_at FROM {table} WHERE id >= ? ORDER BY id LIMIT 1", (row_id,)
    ).fetchone()
    return row[0] if row else ""


def details(
    conn: Any, page: list[search_pages.Hit], sql: dict[str, str] | None = None
) -> list[JSONObject]:
    """The page's rows, in its order, each with a message's or an event's columns (read by
    ``sql``, per table, this store's by default)."""
    sql = sql or _DETAILS
    by_hit: dict[int, JSONObject] = {}
    for source in (_MESSAGES, _EVENTS):
        ids = [hit.id for hit in page if hit.parity == source.parity]
        if not ids:
            continue
        cursor = conn.execute(sql[source.table].format(marks=",".join("?" * len(ids))), ids)
        names = [column[0] for column in cursor.description]
        for values in cursor:
            row = {"event_id": None, **dict(zip(names, values, strict=True))}
            by_hit[2 * (row.pop("id", None) or row["event_id"]) + source.parity] = row
    return [by_hit[hit.hit] for hit in page if hit.hit in by_hit]


def search(conn: sqlite3.Connection, query: SearchQuery, seconds: float | None = None) -> Found:
    """One page of hits, best first, and the cursor of the next (search_pages).

    Words: the newest ``window`` matches by time, messages and events alike, are ranked
    together (bm25 over the one index both share; equal scores newest first), and paged
    through before the next window opens. Literal text: newest first, so only the page's
    rows are read (bm25 would count every row holding the text first, a cost that grows
    with the store: benchmarks/search.py). Past ``seconds`` the search stops where it
    is and hands out what it found (``searched_since`` says from when)."""
    ids = {source.parity: bounds(conn, query, source) for source in sources(query)}
    query, walks = search_pages.resume(query, ids)
    bound = _Bound(SECONDS if seconds is None else seconds)
    reader = _Reader(conn, query, bound)
    run = search_pages.Run(reader.read, bound.expired, reader.since)
    conn.set_progress_handler(bound, 10_000)
    try:
        page = search_pages.page(run, walks, query)
    except sqlite3.OperationalError as exc:
        if any(sign in str(exc) for sign in ("fts5", "syntax", "unterminated", "no such column")):
            raise InvalidInput(
                f"the search query is not valid full-text syntax: {exc}",
                context={"field": "query", "reason": str(exc)},
                suggested_action='quote a phrase ("…"), or search with --mode literal',
            ) from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
    ranked = None if query.literal else page.ranked_newest
    return Found(details(conn, page.hits), ranked, page.searched_since, page.next_cursor)


def backlog(conn: sqlite3.Connection) -> dict[str, int]:
    """Per source, the id below which rows written before the index are not indexed yet."""
    return {r[0]: int(r[1]) for r in conn.execute("SELECT source, below FROM search_backlog")}


def backfill(conn: sqlite3.Connection, batch: int = BACKFILL_BATCH) -> int:
    """Index the newest ``batch`` rows of one source that predate the index; returns how many
    were indexed (0 once nothing is left). Run inside a write transaction."""
    for source, below in sorted(backlog(conn).items()):
        view = _SOURCES[source]
        low = conn.execute(
            f"SELECT MIN(id) FROM (SELECT id FROM {source} WHERE id < ? ORDER BY id DESC LIMIT ?)",
            (below, batch),
        ).fetchone()[0]
        if low is None:
            conn.execute("DELETE FROM search_backlog WHERE source = ?", (source,))
            continue
        window = f"FROM {view} WHERE id >= ? AND id < ?"
        conn.execute(
            f"INSERT INTO search_words (rowid, body, tags) SELECT hit, words, tags {window}",
            (low, below),
        )
        done = conn.execute(
            f"INSERT INTO search_literal (rowid, body) SELECT hit, literal {window}", (low, below)
        ).rowcount
        conn.execute("UPDATE search_backlog SET below = ? WHERE source = ?", (low, source))
        return int(done)
    return 0
