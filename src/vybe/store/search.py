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
from collections import namedtuple

from vybe.errors import InvalidInput
from vybe.store import search_syntax
from vybe.store.db import Deadline


class SearchQuery(
    namedtuple(
        "SearchQuery",
        "text literal session_id type agent project_id since until limit offset",
        defaults=(False, None, None, None, None, None, None, 20, 0),
    )
):
    """What to look for and where. ``type`` is a message type or ``event``."""

    __slots__ = ()

    @property
    def window(self) -> int:
        """How many of the newest matches are ranked: enough for every page asked for."""
        return max(RANK_WINDOW, self.offset + self.limit + 1)


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


# Each source is read newest first in one pass (FTS5 walks its doclists in descending rowid
# order), a batch of rows at a time, until the window is full: a common term fills it from
# the newest rows and stops there. Between batches the time bound is looked at (inside one,
# SQLite's progress handler looks), and a search past it ranks what it found so far.
BATCH = 64
SECONDS = 1.5
_CHUNK = """
SELECT {index}.rowid, {rank}, {table}.created_at FROM {index}
JOIN {table} ON {table}.id = {index}.rowid / 2
WHERE {index} MATCH ? AND {index}.rowid BETWEEN ? AND ? AND {index}.rowid % 2 = {parity}
{filters}
ORDER BY {index}.rowid DESC LIMIT ?
"""
_DETAILS = {
    "messages": "SELECT id, session_id, context_seq, type, (SELECT shown FROM search_messages"
    " WHERE search_messages.id = messages.id) AS content_text, created_at"
    " FROM messages WHERE id IN ({marks})",
    "events": "SELECT id AS event_id, kind, agent_name, task_id, project_id, message,"
    " created_at FROM events WHERE id IN ({marks})",
}


class Found(namedtuple("Found", "rows ranked_newest searched_since")):
    """One page of hits (each a dict, plus one more when there is a next page); the window,
    when more words matched than it ranked; and, when the time bound stopped the search, the
    time from which rows were searched (older ones were not; "" when none were)."""

    __slots__ = ()


class _Source(namedtuple("_Source", "table alias parity")):
    __slots__ = ()


_MESSAGES = _Source("messages", "m", 0)
_EVENTS = _Source("events", "e", 1)


def _sources(query: SearchQuery) -> list[_Source]:
    """The sources a query can find anything in: a session or a message type is only in
    messages, an agent, a project or ``event`` only in events."""
    wanted = []
    if not (query.agent or query.project_id or query.type == "event"):
        wanted.append(_MESSAGES)
    if not (query.session_id or query.type not in (None, "event")):
        wanted.append(_EVENTS)
    return wanted


def _filters(query: SearchQuery, source: _Source) -> tuple[str, list[object]]:
    """Conditions on the rows of ``source``: time always, the rest for literal queries (word
    queries carry them as tag terms)."""
    where: list[str] = []
    params: list[object] = []
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


def _bounds(conn: sqlite3.Connection, query: SearchQuery, source: _Source) -> tuple[int, int]:
    """The rowids ``source`` can match in: all of its rows, or one session's."""
    if source is _MESSAGES and query.session_id:
        sql = "SELECT MIN(id), MAX(id) FROM messages WHERE session_id = ?"
        low, high = conn.execute(sql, (query.session_id,)).fetchone()
    else:
        low, high = 1, conn.execute(f"SELECT MAX(id) FROM {source.table}").fetchone()[0]
    if high is None:
        return 0, -1
    return 2 * low + source.parity, 2 * high + source.parity


def _scan(conn, sql: str, params: list, bounds: tuple[int, int], want: int, stop: Deadline):
    """The newest ``want`` matches within ``bounds``; and, when the time bound stopped the
    search, the rowid of the oldest row read (everything above it was searched), else None."""
    rows: list[tuple] = []
    cursor = conn.cursor()
    try:
        cursor.execute(sql, (params[0], *bounds, *params[1:], want))
        while batch := cursor.fetchmany(BATCH):
            rows += batch
            if len(batch) == BATCH and len(rows) < want and stop():  # a short batch: the end
                return rows, rows[-1][0]
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc) and stop():
            return rows, rows[-1][0] if rows else bounds[1] + 2
        stop.explain(exc)
        raise
    finally:
        cursor.close()
    return rows, None


def _since(conn: sqlite3.Connection, source: _Source, rowid: int) -> str:
    """When the oldest row searched, ``rowid`` or the one after it, was written ("" when the
    search stopped before any)."""
    row = conn.execute(
        f"SELECT created_at FROM {source.table} WHERE id >= ? ORDER BY id LIMIT 1",
        (rowid // 2,),
    ).fetchone()
    return row[0] if row else ""


def _details(conn: sqlite3.Connection, page: list[tuple]) -> list[dict]:
    """The page's rows, in its order, each with a message's or an event's columns."""
    by_hit: dict[int, dict] = {}
    for source in (_MESSAGES, _EVENTS):
        ids = [hit // 2 for hit, *_ in page if hit % 2 == source.parity]
        if not ids:
            continue
        cursor = conn.execute(_DETAILS[source.table].format(marks=",".join("?" * len(ids))), ids)
        names = [column[0] for column in cursor.description]
        for values in cursor:
            row = {"event_id": None, **dict(zip(names, values, strict=True))}
            by_hit[2 * (row.pop("id", None) or row["event_id"]) + source.parity] = row
    return [by_hit[hit] for hit, *_ in page if hit in by_hit]


def search(conn: sqlite3.Connection, query: SearchQuery, seconds: float | None = None) -> Found:
    """One page of hits, best first, plus one more row when there is a next page.

    Words: the newest ``window`` matches by time, messages and events alike, are ranked
    together (bm25 over the one index both share; equal scores newest first). Literal text:
    newest first, so only the page's rows are read (bm25 would count every row holding the
    text first: 0.4 s for a path in half of a million messages, 3 ms without). Past
    ``seconds`` the search stops where it is and ranks what it found (``searched_since``
    says from when)."""
    if query.literal:
        index, rank, match = "search_literal", "0", _literal_match(query)
        want = query.offset + query.limit + 1
    else:
        index, rank, match = "search_words", "bm25(search_words, 1.0, 0.0)", _words_match(query)
        want = query.window
    stop = Deadline(SECONDS if seconds is None else seconds)
    conn.set_progress_handler(stop, 10_000)
    found: list[tuple] = []
    since: list[str] = []
    try:
        for source in _sources(query):
            filters, params = _filters(query, source)
            sql = _CHUNK.format(
                index=index, rank=rank, table=source.table, parity=source.parity, filters=filters
            )
            rows, stopped = _scan(
                conn, sql, [match, *params], _bounds(conn, query, source), want, stop
            )
            found += rows
            if stopped is not None:
                since.append(_since(conn, source, stopped))
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
    found.sort(key=lambda hit: (hit[2], hit[0]), reverse=True)  # newest first
    ranked = sorted(found[:want], key=lambda hit: hit[1])  # stable: ties newest first
    page = ranked[query.offset : query.offset + query.limit + 1]
    window = query.window if not query.literal and len(found) >= query.window else None
    return Found(_details(conn, page), window, max(since) if since else None)


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
