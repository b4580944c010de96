"""Full-text search on a PostgreSQL store (the indexes of migration postgresql/0008).

The same contract as vybe.store.search on SQLite, on the server's own machinery: word
queries are the tree of vybe.store.search_syntax written as a tsquery, each term passed as
a parameter through ``phraseto_tsquery`` (the text is tokenized, never parsed as syntax),
ranked with ``ts_rank``; literal queries pick candidates by trigrams and keep those whose
text holds the query (strpos, case folded), ranked by how often it occurs.

As on SQLite, a hit is 2·id for message ``id``, 2·id + 1 for event ``id``; the newest
``window`` matches that pass the filters are ranked; the server stops a search that runs
past ``TIMEOUT_MS`` (QUERY_TIMEOUT). Imported only on a PostgreSQL store.
"""

from __future__ import annotations

from psycopg import errors as pg_errors
from psycopg.rows import dict_row

from vybe.errors import VybeError
from vybe.store import search_syntax
from vybe.store.search import SearchQuery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_MS = 5000
_JOIN = {"AND": " && ", "OR": " || ", "NOT": " && !! "}
# Each source: its table, its alias, its hit number, its words and its literal text.
_MESSAGES = ("messages", "m", "2 * m.id", "m.content_text", "vybe_search_literal(m.content_text)")
_EVENTS = (
    "events",
    "e",
    "2 * e.id + 1",
    "e.kind || ' ' || e.message",
    "e.kind || ' ' || e.message",
)
_TEXT = "COALESCE(m.content_text, e.kind || ' ' || e.message)"
_LITERAL = "COALESCE(vybe_search_literal(m.content_text), e.kind || ' ' || e.message)"
_PAGE = """
SELECT w.hit, w.found, m.session_id, m.context_seq, m.type, m.content_text,
    e.id AS event_id, e.kind, e.agent_name, e.task_id, e.project_id, e.message,
    COALESCE(m.created_at, e.created_at) AS created_at
FROM (
    SELECT n.hit, COUNT(*) OVER () AS found, {score} AS score
    FROM (SELECT hit FROM ({newest}) AS found ORDER BY hit DESC LIMIT %(window)s) AS n
    LEFT JOIN messages AS m ON n.hit %% 2 = 0 AND m.id = n.hit / 2
    LEFT JOIN events AS e ON n.hit %% 2 = 1 AND e.id = n.hit / 2
) AS w
LEFT JOIN messages AS m ON w.hit %% 2 = 0 AND m.id = w.hit / 2
LEFT JOIN events AS e ON w.hit %% 2 = 1 AND e.id = w.hit / 2
ORDER BY w.score DESC, w.hit DESC
LIMIT %(limit)s OFFSET %(offset)s
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


def _match(query: SearchQuery, params: dict[str, object]) -> tuple[str, str]:
    """How a row of a source is matched (a condition on its words or its literal text,
    ``{words}`` / ``{literal}`` standing for them) and how a hit is scored."""
    if query.literal:
        params["needle"] = query.text
        folded = "lower(%(needle)s)"
        match = (
            "vybe_trigrams({literal}) @> vybe_trigram_probe(%(needle)s)"
            f" AND strpos(lower({{literal}}), {folded}) > 0"
        )
        occurs = f"(length(lower({_LITERAL})) - length(replace(lower({_LITERAL}), {folded}, '')))"
        score = f"{occurs} / length({folded}) / ln(length({_LITERAL}) + 2.0)"
        return match, score
    expression = tsquery(search_syntax.parse(query.text), params)
    match = f"vybe_search_words({{words}}) @@ {expression}"
    score = f"ts_rank(vybe_search_words({_TEXT}), {expression}, 1)"
    return match, score


def search(conn: Any, query: SearchQuery) -> list[dict[str, Any]]:
    """One page of hits, best first, plus one more row when there is a next page."""
    params: dict[str, object] = {}
    match, score = _match(query, params)
    branches = [
        f"(SELECT {hit} AS hit FROM {table} AS {alias}"
        f" WHERE {match.format(words=words, literal=literal)}{_filters(alias, query, params)}"
        f" ORDER BY {alias}.id DESC LIMIT %(window)s)"
        for table, alias, hit, words, literal in _sources(query)
    ]
    if not branches:
        return []
    params.update(window=query.window, limit=query.limit + 1, offset=query.offset)
    sql = _PAGE.format(score=score, newest=" UNION ALL ".join(branches))
    raw = conn.raw
    raw.execute(f"SET LOCAL statement_timeout = {int(TIMEOUT_MS)}")
    try:
        return raw.cursor(row_factory=dict_row).execute(sql, params).fetchall()
    except pg_errors.QueryCanceled:
        raise VybeError(
            f"the search ran past its time limit of {TIMEOUT_MS / 1000:g} s and was stopped",
            code="QUERY_TIMEOUT",
            context={"seconds": TIMEOUT_MS / 1000},
            suggested_action="search for rarer words, or narrow by --session-id, --type, --since",
        ) from None
