"""Full-text search on a PostgreSQL store (the indexes of migration postgresql/0008).

The same contract as vybe.store.search on SQLite, on the server's own machinery: word
queries are the tree of vybe.store.search_syntax written as a tsquery, each term passed as
a parameter through ``phraseto_tsquery`` (the text is tokenized, never parsed as syntax),
ranked with ``ts_rank``; literal queries pick candidates by trigrams and keep those whose
text holds the query (strpos, case folded), ranked by how often it occurs.

As on SQLite, a hit is 2·id for message ``id``, 2·id + 1 for event ``id``; a word query's
filters (type, session, agent, project) are tag terms of the stored vectors; the newest
``window`` matches that pass the filters are ranked; the server stops a search that runs
past ``TIMEOUT_MS`` (QUERY_TIMEOUT). Imported only on a PostgreSQL store.
"""

from __future__ import annotations

import hashlib

from psycopg import errors as pg_errors
from psycopg.rows import dict_row

from vybe.errors import VybeError
from vybe.store import search_syntax
from vybe.store.search import Found, SearchQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_MS = 1500  # SQLite's search stops at the same bound
_JOIN = {"AND": " && ", "OR": " || ", "NOT": " && !! "}
_EVENT = "e.kind || ' ' || e.message"
# Each source: its table, its alias, its words' table, its hit number, its literal text.
_LITERAL = "vybe_message_literal(m.content_text, m.content_json)"
_MESSAGES = ("messages", "m", "message_words", "2 * n.id", _LITERAL)
_EVENTS = ("events", "e", "event_words", "2 * n.id + 1", _EVENT)
# The newest `want` matches by time, messages and events alike, each with what scores it
# (``body``: its words or its literal text, carried up so nothing is read twice); the page
# of them that ranks best (equal scores newest first); then its rows, looked up one by one
# (a join over ``hit / 2`` would walk a whole index).
_PAGE = """
SELECT p.hit, p.found, m.session_id, m.context_seq, m.type,
    vybe_message_text(m.content_text, m.content_json) AS content_text,
    e.id AS event_id, e.kind, e.agent_name, e.task_id, e.project_id, e.message,
    p.created_at
FROM (
    SELECT hit, found, score, created_at FROM (
        SELECT n.hit, n.created_at, COUNT(*) OVER () AS found, {score} AS score
        FROM (SELECT * FROM ({newest}) AS found ORDER BY created_at DESC, hit DESC
            LIMIT %(want)s) AS n
    ) AS w
    ORDER BY score DESC, created_at DESC, hit DESC
    LIMIT %(limit)s OFFSET %(offset)s
) AS p
LEFT JOIN LATERAL (SELECT * FROM messages WHERE p.hit %% 2 = 0 AND id = p.hit / 2) AS m ON true
LEFT JOIN LATERAL (SELECT * FROM events WHERE p.hit %% 2 = 1 AND id = p.hit / 2) AS e ON true
ORDER BY p.score DESC, p.created_at DESC, p.hit DESC
"""
# One source's newest matches (``{match}``: their ids and bodies), with when each was written.
_NEWEST = """
SELECT {hit} AS hit, n.body, t.created_at
FROM ({match} LIMIT %(want)s) AS n, LATERAL (SELECT created_at FROM {table} WHERE id = n.id) AS t
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


def _sources(query: SearchQuery) -> list[tuple[str, ...]]:
    """The tables a query's filters leave: a session or a message type only messages have,
    an agent, a project or ``event`` only events."""
    messages = query.type != "event" and not query.agent and not query.project_id
    events = query.type in (None, "event") and not query.session_id
    return [source for source, keep in ((_MESSAGES, messages), (_EVENTS, events)) if keep]


def _filters(alias: str, query: SearchQuery, params: dict[str, object]) -> str:
    """A source's filters as conditions on its columns."""
    where = []
    if query.since:
        where.append(f"{alias}.created_at >= %(since)s")
    if query.until:
        where.append(f"{alias}.created_at < %(until)s")
    if alias == "m":
        if query.type:
            where.append("m.type = %(type)s")
        if query.session_id:
            where.append("m.session_id = %(session_id)s")
    else:
        if query.agent:
            where.append("e.agent_name = %(agent)s")
        if query.project_id:
            where.append("e.project_id = %(project_id)s")
    params.update(query._asdict())
    return "".join(" AND " + w for w in where)


def _literal(source: tuple[str, ...], query: SearchQuery, params: dict[str, object], _: str) -> str:
    """The newest rows of one source that hold the literal text, as the hits they are."""
    table, alias, _words_table, hit, literal = source
    match = (
        f"SELECT {alias}.id, {literal} AS body FROM {table} AS {alias}"
        f" WHERE vybe_trigrams({literal}) @> vybe_trigram_probe(%(needle)s)"
        f" AND strpos(lower({literal}), lower(%(needle)s)) > 0{_filters(alias, query, params)}"
        f" ORDER BY {alias}.id DESC"
    )
    return _NEWEST.format(hit=hit, match=match, table=table)


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


def _words(
    source: tuple[str, ...], query: SearchQuery, params: dict[str, object], match: str
) -> str:
    """The newest rows of one source whose words and tags match, joined to the source only
    for a time range (the one filter not in the tags)."""
    table, alias, words, hit, _ = source
    times = _filters(
        alias, query._replace(type=None, session_id=None, agent=None, project_id=None), params
    )
    joined = f" JOIN {table} AS {alias} ON {alias}.id = s.id" if times else ""
    found = (
        f"SELECT s.id, s.words AS body FROM {words} AS s{joined}"
        f" WHERE s.words @@ ({match}{_tags(alias, query, params)}){times} ORDER BY s.id DESC"
    )
    return _NEWEST.format(hit=hit, match=found, table=table)


def _score(query: SearchQuery, match: str) -> str:
    """A hit's score, higher first: ts_rank of its words; literal hits come newest first."""
    return "0" if query.literal else f"ts_rank(n.body, {match}, 1)"


def search(conn: Any, query: SearchQuery) -> Found:
    """One page of hits, best first, plus one more row when there is a next page: the
    newest ``window`` word matches ranked, or the newest literal ones."""
    params: dict[str, object] = {"needle": query.text}
    match = "" if query.literal else tsquery(search_syntax.parse(query.text), params)
    branch = _literal if query.literal else _words
    newest = [f"({branch(source, query, params, match)})" for source in _sources(query)]
    if not newest:
        return Found([], None, None)
    want = query.offset + query.limit + 1 if query.literal else query.window
    params.update(want=want, limit=query.limit + 1, offset=query.offset)
    sql = _PAGE.format(score=_score(query, match), newest=" UNION ALL ".join(newest))
    raw = conn.raw
    raw.execute(f"SET LOCAL statement_timeout = {max(1, int(TIMEOUT_MS))}")
    try:
        rows = raw.cursor(row_factory=dict_row).execute(sql, params).fetchall()
    except pg_errors.QueryCanceled:
        raise VybeError(
            f"the search ran past its time limit of {TIMEOUT_MS / 1000:g} s and was stopped",
            code="QUERY_TIMEOUT",
            context={"seconds": TIMEOUT_MS / 1000},
            suggested_action="search for rarer words, or narrow by --session-id, --type, --since",
        ) from None
    full = not query.literal and bool(rows) and rows[0]["found"] >= query.window
    return Found(rows, query.window if full else None, None)
