"""Full-text search on a PostgreSQL store (the indexes of migration postgresql/0008).

The same contract as vybe.store.search on SQLite, on the server's own machinery: word
queries are the tree of vybe.store.search_syntax written as a tsquery, each term passed as
a parameter through ``phraseto_tsquery`` (the text is tokenized, never parsed as syntax),
ranked with ``ts_rank``; literal queries pick candidates by trigrams and keep those whose
text holds the query (strpos, case folded), newest first.

As on SQLite, a hit is 2·id for message ``id``, 2·id + 1 for event ``id``; a word query's
filters (type, session, agent, project) are tag terms of the stored vectors; pages are
walked and handed out by vybe.store.search_pages, one statement per read, in a savepoint
with a ``statement_timeout`` of the time left: a read the server stops is rolled back and
found nothing, so the page reads the first span of ids instead (``complete: false``).
Imported only on a PostgreSQL store.
"""

from __future__ import annotations

import hashlib
import time

from psycopg import errors as pg_errors

from vybe.store import search as search_rows
from vybe.store import search_pages, search_syntax
from vybe.store.search import Found, SearchQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_JOIN = {"AND": " && ", "OR": " || ", "NOT": " && !! "}
_EVENT = "e.kind || ' ' || e.message"
# Each source: its table, its alias, its words' table, its literal text.
_SOURCES = {
    0: ("messages", "m", "message_words", "vybe_message_literal(m.content_text, m.content_json)"),
    1: ("events", "e", "event_words", _EVENT),
}
# A page's rows: a message's text with the tool calls it makes, as its snippet shows them.
_DETAILS = {
    **search_rows._DETAILS,
    "messages": "SELECT id, session_id, context_seq, type, source,"
    " vybe_message_text(content_text, content_json) AS content_text, created_at"
    " FROM messages WHERE id IN ({marks})",
}
# A source's matches in a range of ids, newest first, with when each was written (looked up
# row by row: a join over the whole table would walk its index). Never a prepared statement:
# a plan made for no particular range and text (psycopg prepares a statement from its 5th
# run) reads every row holding a common trigram before it sorts them, where one made for
# them walks the newest ids and stops.
_RANGE = """
SELECT n.id, n.score, t.created_at FROM ({match}) AS n,
LATERAL (SELECT created_at FROM {table} WHERE id = n.id) AS t
ORDER BY n.id DESC
"""


def tsquery(tree: search_syntax.Term | search_syntax.Op, params: dict[str, object]) -> str:
    """The tree as a tsquery expression; each term's text becomes a parameter."""
    if isinstance(tree, search_syntax.Term):
        name = f"t{len(params)}"
        params[name] = tree.text
        if tree.prefix:
            return f"vybe_search_prefix(%({name})s)"
        return f"phraseto_tsquery('simple', vybe_search_text(%({name})s))"
    return "(" + _JOIN[tree.name].join(tsquery(node, params) for node in tree.operands) + ")"


def _filters(
    alias: str, query: SearchQuery, params: dict[str, object], tagged: bool = False
) -> str:
    """A source's filters as conditions on its columns (but those its words carry as tags,
    when ``tagged``)."""
    where = []
    if query.since:
        where.append(f"{alias}.created_at >= %(since)s")
    if query.until:
        where.append(f"{alias}.created_at < %(until)s")
    if alias == "e" and len(search_rows.sources(query)) == 2:
        where.append(search_rows.RECORDED_PROMPT.format(table="e", value="%(recorded)s"))
        params["recorded"] = search_rows.RECORDED_PROMPT_PATTERN
    columns = {"m": (("type", "type"), ("session_id", "session_id"))}.get(
        alias, (("agent_name", "agent"), ("project_id", "project_id"))
    )
    for column, name in () if tagged else columns:
        if getattr(query, name):
            where.append(f"{alias}.{column} = %({name})s")
    params.update(query._asdict())
    return "".join(" AND " + w for w in where)


def _tags(alias: str, query: SearchQuery, params: dict[str, object]) -> str:
    """The filters a source's words carry as tags (vybe_search_tags), as tsquery terms."""
    values = (
        [("tt", query.type), ("ts", query.session_id)]
        if alias == "m"
        else [("tt", query.type), ("ta", query.agent), ("tp", query.project_id)]
    )
    out = ""
    for prefix, value in values:
        if value:
            digest = value if prefix == "tt" else hashlib.md5(value.encode()).hexdigest()
            params[f"tag_{prefix}"] = f"':{prefix}:{digest}'"
            out += f" && %(tag_{prefix})s::tsquery"
    return out


def _literal(source: tuple[str, ...], query: SearchQuery, params: dict[str, object], _: str) -> str:
    """One source's rows in a range of ids that hold the literal text."""
    table, alias, _words_table, literal = source
    return (
        f"SELECT {alias}.id, 0 AS score FROM {table} AS {alias}"
        f" WHERE vybe_trigrams({literal}) @> vybe_trigram_probe(%(needle)s)"
        f" AND strpos(lower({literal}), lower(%(needle)s)) > 0{_filters(alias, query, params)}"
        f" AND {alias}.id BETWEEN %(low)s AND %(high)s ORDER BY {alias}.id DESC LIMIT %(want)s"
    )


def _words(
    source: tuple[str, ...], query: SearchQuery, params: dict[str, object], match: str
) -> str:
    """One source's rows in a range of ids whose words and tags match (lower scores rank
    higher), joined to the source only for the filters not in the tags (a time range, a
    recorded prompt's event)."""
    table, alias, words, _ = source
    times = _filters(alias, query, params, tagged=True)
    joined = f" JOIN {table} AS {alias} ON {alias}.id = s.id" if times else ""
    return (
        f"SELECT s.id, -ts_rank(s.words, {match}, 1) AS score FROM {words} AS s{joined}"
        f" WHERE s.words @@ ({match}{_tags(alias, query, params)}){times}"
        f" AND s.id BETWEEN %(low)s AND %(high)s ORDER BY s.id DESC LIMIT %(want)s"
    )


class _Reader:
    """One page's reads (search_pages.Run's ``read``, ``expired`` and ``since``): each read
    one statement in a savepoint, stopped by the server past the time left."""

    def __init__(self, conn: Any, query: SearchQuery) -> None:
        self.conn, self.raw = conn, conn.raw
        self.deadline = time.monotonic() + search_rows.SECONDS
        self.params: dict[str, object] = {"needle": query.text}
        match = "" if query.literal else tsquery(search_syntax.parse(query.text), self.params)
        branch = _literal if query.literal else _words
        self.sql = {}
        for parity in (source.parity for source in search_rows.sources(query)):
            source = _SOURCES[parity]
            self.sql[parity] = _RANGE.format(
                match=branch(source, query, self.params, match), table=source[0]
            )

    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def read(
        self, parity: int, high: int, low: int, want: int, first: bool
    ) -> tuple[list[search_pages.Hit], bool]:
        left = search_pages.FIRST_SECONDS if first else self.deadline - time.monotonic()
        if left <= 0:
            return [], True
        raw = self.raw
        raw.execute("SAVEPOINT vybe_search_read")
        raw.execute(f"SET LOCAL statement_timeout = {max(1, int(left * 1000))}")
        try:
            rows = raw.execute(
                self.sql[parity],
                {**self.params, "low": low, "high": high, "want": want},
                prepare=False,  # planned for its bounds and text each time (see _RANGE)
            ).fetchall()
        except pg_errors.QueryCanceled:
            raw.execute("ROLLBACK TO SAVEPOINT vybe_search_read")
            return [], True
        raw.execute("RELEASE SAVEPOINT vybe_search_read")
        return [search_pages.Hit(i, parity, float(score), at) for i, score, at in rows], False

    def since(self, parity: int, row_id: int) -> str:
        return search_rows.since(self.conn, parity, row_id)


def search(conn: Any, query: SearchQuery) -> Found:
    """One page of hits, best first, and the cursor of the next: the newest ``window`` word
    matches ranked, or the newest literal ones (search_pages)."""
    sources = search_rows.sources(query)
    bounds = {source.parity: search_rows.bounds(conn, query, source) for source in sources}
    query, walks = search_pages.resume(query, bounds)
    reader = _Reader(conn, query)
    run = search_pages.Run(reader.read, reader.expired, reader.since)
    try:
        page = search_pages.page(run, walks, query)
    finally:
        conn.raw.execute("SET LOCAL statement_timeout TO DEFAULT")
    ranked = None if query.literal else page.ranked_newest
    return Found(
        search_rows.details(conn, page.hits, _DETAILS),
        ranked,
        page.searched_since,
        page.next_cursor,
    )
