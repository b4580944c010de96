"""Looking things up in the record of sessions and in the event log.

A checkpoint lets details go, and an agent's own compaction drops them: they stay in the
record, and this is the way back to them. A query is either words (FTS5 syntax: terms,
``"exact phrases"``, ``prefix*``, AND / OR / NOT, ranked with bm25) or literal text, found as
it was written (paths, ids, error messages; at least three characters). ``auto`` takes a
query that looks like a path, an id or a command (``/ . _ : = @ # $ % ~ \\``, or digits in a
single word) as literal, anything else as words.
"""

from __future__ import annotations

import re

from vybe import clock, limits
from vybe.errors import InvalidInput
from vybe.store import Store, search_pages, search_syntax
from vybe.store import search as search_rows
from vybe.store.record import HOOK_SOURCE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

QUERY_MAX = 1000
LIMIT_MAX = 1000
CURSOR_MAX = search_pages.CURSOR_MAX
SNIPPET_CHARS = 240
MODES = ("auto", "words", "literal")
TYPES = ("user", "harness", "assistant", "tool", "system", "event")
_LITERAL_SIGNS = set("/._:=@#$%~\\")


def literal_looking(text: str) -> bool:
    """Whether ``auto`` reads the query as literal text rather than words."""
    if any(sign in text for sign in '"*()'):
        return False  # the person wrote full-text syntax
    if _LITERAL_SIGNS & set(text):
        return True
    return " " not in text.strip() and any(c.isdigit() for c in text)


def _time(name: str, value: str | None) -> str | None:
    """An ISO time (a date, or a time with or without its fraction; UTC unless it says
    otherwise) or a duration before now (``24h``), as the store writes times."""
    if value is None:
        return None
    from datetime import UTC, datetime

    text = value.strip()
    try:
        if text[-1:].lower() in "smhdw" and text[:-1].isdigit():
            return clock.iso(clock.now() - clock.parse_duration(text))
        moment = datetime.fromisoformat(text)
        return clock.iso(moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    except (ValueError, OverflowError):
        raise InvalidInput(
            f"{name} must be a time such as 2026-12-01 or 2026-12-01T09:30:00Z, or a duration"
            " ago such as 24h or 7d",
            context={"field": name, "value": value[:80]},
        ) from None


def _validated(query: search_rows.SearchQuery, mode: str) -> search_rows.SearchQuery:
    limits.text("query", query.text, QUERY_MAX, required=True)
    if mode not in MODES:
        raise InvalidInput(f"mode must be one of {', '.join(MODES)}", context={"field": "mode"})
    if query.type is not None and query.type not in TYPES:
        raise InvalidInput(f"type must be one of {', '.join(TYPES)}", context={"field": "type"})
    limit = query.limit
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LIMIT_MAX:
        raise InvalidInput(
            f"limit must be a whole number from 1 to {LIMIT_MAX}", context={"field": "limit"}
        )
    if query.cursor is not None:
        limits.text("cursor", query.cursor, CURSOR_MAX, required=True)
    # (query field, the parameter's name on every surface, its limit)
    for name, field, limit in (
        ("session_id", "session_id", limits.PATH_MAX),
        ("agent", "agent_name", limits.AGENT_MAX),
        ("project_id", "project_id", limits.PATH_MAX),
    ):
        value = getattr(query, name)
        if value is not None:
            limits.text(field, value, limit, required=True)
    literal = mode == "literal" or (mode == "auto" and literal_looking(query.text))
    if literal and len(query.text.strip()) < 3:
        raise InvalidInput(
            "a literal search needs at least 3 characters",
            context={"field": "query", "length": len(query.text.strip())},
            suggested_action="search for more of the text, or search words",
        )
    return query._replace(literal=literal, text=query.text.strip() if literal else query.text)


def _timed(query: search_rows.SearchQuery) -> search_rows.SearchQuery:
    """The query's time range as the store writes times. Inside the read's snapshot: a
    duration (``24h``) counts back from the time the store's rows are stamped by (a server
    store's clock, not this machine's)."""
    return query._replace(since=_time("since", query.since), until=_time("until", query.until))


# A word's characters as the words index reads them (unicode61: letters and digits; an
# underscore separates words).
_WORD = r"[^\W_]"
_BETWEEN_WORDS = r"[\W_]+"
MATCHES_READ = 2000  # matches looked at per snippet, from the start of the text


def _term_pattern(term: search_syntax.Term) -> str | None:
    """A word query's term as the text holds it: its words in order, anything not a word
    between them, the last one a prefix when the term is."""
    words = re.findall(f"{_WORD}+", term.text)
    if not words:
        return None
    head = f"(?<!{_WORD})" + _BETWEEN_WORDS.join(map(re.escape, words))
    return head + (f"{_WORD}*" if term.prefix else f"(?!{_WORD})")


def needles(query: search_rows.SearchQuery) -> list[re.Pattern[str]]:
    """What a snippet marks: the literal text, or each of the query's terms."""
    if query.literal:
        patterns = [re.escape(query.text)]
    else:
        terms = search_syntax.terms(search_syntax.parse(query.text))
        patterns = [p for p in map(_term_pattern, terms) if p]
    return [re.compile(p, re.IGNORECASE) for p in dict.fromkeys(patterns)]


def _matches(text: str, patterns: list[re.Pattern[str]]) -> list[tuple[int, int, int]]:
    """(start, end, which needle) of the needles' matches, in order, the first
    MATCHES_READ of each."""
    found = []
    for n, pattern in enumerate(patterns):
        for match, _ in zip(pattern.finditer(text), range(MATCHES_READ), strict=False):
            if match.end() > match.start():
                found.append((match.start(), match.end(), n))
    return sorted(found)


def _best_window(found: list[tuple[int, int, int]], width: int) -> int:
    """The index in ``found`` where the window of ``width`` characters holding the most
    different needles (then the most matches) begins: the first such."""
    best, best_at, last = (0, 0), 0, 0
    inside: dict[int, int] = {}
    for first, (start, _, _) in enumerate(found):
        while last < len(found) and found[last][1] <= start + width:
            inside[found[last][2]] = inside.get(found[last][2], 0) + 1
            last += 1
        score = (len(inside), last - first)
        if score > best:
            best, best_at = score, first
        needle = found[first][2]
        inside[needle] -= 1
        if not inside[needle]:
            del inside[needle]
    return best_at


def snippet(text: str, patterns: list[re.Pattern[str]], width: int = SNIPPET_CHARS) -> str:
    """The part of ``text`` where the needles' matches are thickest (most different needles
    within ``width`` characters), every match in it marked ``**…**``; the start of the text
    when none matches."""
    found = _matches(text, patterns)
    if not found:
        return text[:width] + ("…" if len(text) > width else "")
    first = _best_window(found, width)
    at = found[first][0]
    shown = [m for m in found[first:] if m[1] <= at + width]
    span = max(end for _, end, _ in shown) - at
    start = max(0, at - (width - span) // 2)
    stop = min(len(text), max(start + width, at + span))
    out, cursor = ["…" if start else ""], start
    for begin, end, _ in shown:
        if begin >= cursor:
            out += [text[cursor:begin], "**", text[begin:end], "**"]
            cursor = end
    out += [text[cursor:stop], "…" if stop < len(text) else ""]
    return "".join(out)


def _hit(row: JSONObject, patterns: list[re.Pattern[str]]) -> JSONObject:
    if row["event_id"] is None:
        prompt = row["source"] == HOOK_SOURCE and row["type"] == "user"
        return {
            "source": "message",
            "sources": ["message", "user_prompt event"] if prompt else ["message"],
            "session_id": row["session_id"],
            "seq": row["context_seq"],
            "type": row["type"],
            "created_at": row["created_at"],
            "snippet": snippet(row["content_text"], patterns),
        }
    return {
        "source": "event",
        "sources": ["event"],
        "event_id": row["event_id"],
        "kind": row["kind"],
        "agent": row["agent_name"],
        "task_id": row["task_id"],
        "project_id": row["project_id"],
        "created_at": row["created_at"],
        "snippet": snippet(f"{row['kind']} {row['message']}", patterns),
    }


def search(store: Store, query: search_rows.SearchQuery, mode: str = "auto") -> JSONObject:
    """One page of hits, best first, with the cursor of the next page when there is one."""
    query = _validated(query, mode)
    with store.snapshot() as conn:
        query = _timed(query)
        found = store.search(conn, query)
        backlog = search_rows.backlog(conn)
    patterns = needles(query)
    hits = [_hit(row, patterns) for row in found.rows]
    return {
        "query": query.text,
        "mode": "literal" if query.literal else "words",
        "count": len(hits),
        "next_cursor": found.next_cursor,
        "ranked_newest": found.ranked_newest,
        "complete": found.searched_since is None,
        "searched_since": found.searched_since,
        "index_complete": not backlog,
        "hits": hits,
    }


def index_backlog(store: Store, batches: int) -> JSONObject:
    """Index up to ``batches`` batches of rows written before the index, one transaction
    each, so other writers get the lock between them; says what is left."""
    indexed = 0
    for _ in range(batches):
        done = store.transact(search_rows.backfill)
        indexed += done
        if not done and not store.transact(search_rows.backlog):
            break
    with store.snapshot() as conn:
        left = search_rows.backlog(conn)
    return {"indexed": indexed, "complete": not left}
