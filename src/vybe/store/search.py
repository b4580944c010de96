"""Full-text search over the record and the event log (the indexes of migration 0008).

A hit's row id says where it lives: 2·id is message ``id``, 2·id + 1 event ``id``. Word
queries go to ``search_words`` (FTS5 syntax, bm25 ranking, filters as tag terms); literal
queries to ``search_literal`` (trigrams: the text exactly as written, case folded).

Ranking is bounded: the newest ``window`` matches are ranked (bm25), so a term found in half
a million messages costs what a rare one does; the result says when the window was full.
"""

from __future__ import annotations

import sqlite3
from collections import namedtuple

from vybe.errors import InvalidInput


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


def _bare(chunk: str) -> bool:
    """Whether FTS5 reads ``chunk`` as one bareword (ASCII letters, digits, ``_``, any
    non-ASCII character), optionally a prefix (``*``) or first-token (``^``) one."""
    core = chunk.removeprefix("^").removesuffix("*")
    return bool(core) and all(c.isalnum() or c == "_" or not c.isascii() for c in core)


def _chunk(chunk: str) -> str:
    """A word as FTS5 should read it: a bareword as is, anything else (``read-only``,
    ``it's``, ``TODO:``) as the phrase of its tokens, so no punctuation is taken for syntax
    (a ``:`` for a column filter of the index, a ``-`` for a column exclusion)."""
    if chunk == "^" or _bare(chunk):  # a lone ^ marks the phrase that follows
        return chunk
    star = "*" if chunk.endswith("*") else ""
    return '"' + chunk.removesuffix("*") + '"' + star


def _body(text: str) -> str:
    """The person's query as the expression inside ``body : (...)``: quoted phrases,
    parentheses, operators and barewords as written, other words quoted; parentheses must
    balance, or a ``)`` would close the group and escape the filters ANDed after it."""
    out, depth, i = [], 0, 0
    while i < len(text):
        char = text[i]
        if char == '"':  # a phrase as written, up to its closing quote ("" is a quote)
            end = i + 1
            while (end := text.find('"', end)) >= 0 and text[end + 1 : end + 2] == '"':
                end += 2
            stop = len(text) if end < 0 else end + 1
            out.append(text[i:stop] + ("*" if text[stop : stop + 1] == "*" else ""))
            i = stop + (text[stop : stop + 1] == "*")
        elif char in "()":
            depth += 1 if char == "(" else -1
            if depth < 0:
                break
            out.append(char)
            i += 1
        elif char.isspace():
            out.append(" ")
            i += 1
        else:
            end = i
            while end < len(text) and not text[end].isspace() and text[end] not in '"()':
                end += 1
            out.append(_chunk(text[i:end]))
            i = end
    if depth:
        raise InvalidInput(
            "the search query's parentheses do not balance",
            context={"field": "query"},
            suggested_action="close every ( with a ), or quote the text",
        )
    return "".join(out)


def _words_match(query: SearchQuery) -> str:
    terms = [f"body : ({_body(query.text)})"]
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


# The window is taken after the filters: the newest ``window`` matches that pass them are
# ranked, so a filter never hides a match that older, filtered-out rows pushed out.
_SELECT = """
SELECT hit.rowid AS hit, hit.score AS score, hit.found AS found,
    m.session_id, m.context_seq, m.type, m.content_text,
    e.id AS event_id, e.kind, e.agent_name, e.task_id, e.project_id, e.message,
    COALESCE(m.created_at, e.created_at) AS created_at
FROM (
    SELECT rowid, score, COUNT(*) OVER () AS found FROM (
        SELECT {index}.rowid AS rowid, {rank} AS score
        FROM {index}
        LEFT JOIN messages AS m ON {index}.rowid % 2 = 0 AND m.id = {index}.rowid / 2
        LEFT JOIN events AS e ON {index}.rowid % 2 = 1 AND e.id = {index}.rowid / 2
        WHERE {index} MATCH ? AND (m.id IS NOT NULL OR e.id IS NOT NULL) {filters}
        ORDER BY {index}.rowid DESC LIMIT ?
    )
) AS hit
LEFT JOIN messages AS m ON hit.rowid % 2 = 0 AND m.id = hit.rowid / 2
LEFT JOIN events AS e ON hit.rowid % 2 = 1 AND e.id = hit.rowid / 2
ORDER BY hit.score, hit.rowid DESC
LIMIT ? OFFSET ?
"""


def _filters(query: SearchQuery) -> tuple[str, list[object]]:
    """Conditions on the rows found: time always, the rest for literal queries (word
    queries carry them as tag terms)."""
    where: list[str] = []
    params: list[object] = []
    if query.since:
        where.append("COALESCE(m.created_at, e.created_at) >= ?")
        params.append(query.since)
    if query.until:
        where.append("COALESCE(m.created_at, e.created_at) < ?")
        params.append(query.until)
    if query.literal:
        if query.type == "event":
            where.append("e.id IS NOT NULL")
        elif query.type:
            where.append("m.type = ?")
            params.append(query.type)
        for column, value in (
            ("m.session_id", query.session_id),
            ("e.agent_name", query.agent),
            ("e.project_id", query.project_id),
        ):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
    return "".join(" AND " + w for w in where), params


def search(conn: sqlite3.Connection, query: SearchQuery) -> list[sqlite3.Row]:
    """One page of hits, best first, plus one more row when there is a next page."""
    if query.literal:
        index, rank, match = "search_literal", "bm25(search_literal)", _literal_match(query)
    else:
        index, rank, match = "search_words", "bm25(search_words, 1.0, 0.0)", _words_match(query)
    filters, params = _filters(query)
    sql = _SELECT.format(index=index, rank=rank, filters=filters)
    try:
        found = [match, *params, query.window, query.limit + 1, query.offset]
        return conn.execute(sql, found).fetchall()
    except sqlite3.OperationalError as exc:
        if any(sign in str(exc) for sign in ("fts5", "syntax", "unterminated", "no such column")):
            raise InvalidInput(
                f"the search query is not valid full-text syntax: {exc}",
                context={"field": "query", "reason": str(exc)},
                suggested_action='quote a phrase ("…"), or search with --mode literal',
            ) from None
        raise


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
