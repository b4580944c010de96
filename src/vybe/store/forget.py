"""The SQL of `vybe forget` and of retention: words taken back out of every table and index.

What is forgotten becomes a marker, never a gap, in the record and the log: a message keeps
its session, place, type and time and the keys its importer or the proxy finds it by (so an
import of the same transcript starts after it, as before), its words become ``MARKER``; an
event keeps its kind, task, project and time. What is made from words (checkpoints and their
attempts, compaction receipts, hand-off context, the ledger's replies) is deleted. ``--text``
replaces the string alone, wherever it is, with ``MARKER``: the rest of each row stays.

The append-only tables let a transaction change them while it holds the row of
``forgetting`` (migration 0019), which ``unlocked`` puts in and takes out before the commit.
The search indexes follow each changed row: SQLite's FTS5 entries are taken out with the
row's old words and put back with its new ones, then ``optimize`` merges each index into
one segment so no older segment keeps the words; PostgreSQL's word rows are rewritten (its
trigram indexes are over expressions, which the update keeps up).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from vybe import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.jsonio import JSONObject

MARKER = "[forgotten]"
MARKER_TOKENS = -(-len(MARKER.encode()) // 4)  # the record's estimate: ceil(bytes / 4)

# Every table that holds words (a person's, an agent's, a tool's) and the columns that do;
# tests/store/test_forget_tables.py holds this to the migrations with NO_WORDS, so a table
# or a column of words added later is named here before it ships.
WORDS: dict[str, tuple[str, ...]] = {
    "messages": ("content_text", "content_json"),
    "events": ("message", "metadata"),
    "memory": ("key", "value"),
    "tasks": ("title", "description", "blocked_reason", "metadata"),
    "projects": ("name", "metadata"),
    "artifacts": ("file_path",),
    "checkpoints": ("mind", "memo", "now", "kept_inputs", "skills", "files"),
    "checkpoint_attempts": ("problems", "fallbacks", "flagged_references", "error"),
    "compaction_receipts": ("verbatim", "kept", "cut", "released"),
    "handoff_context": ("context",),
    "idempotency": ("result_json",),
}
NO_WORDS = {
    "schema_migrations": "the migrations' names and times",
    "task_dependencies": "pairs of task ids",
    "agent_state": "each agent's cursor and focus ids",
    "sessions": "session ids and when each began",
    "search_backlog": "how far the search index is built",
    "session_typed": "how many messages of each session a person typed",
    "forgetting": "empty at rest: a forget's permission to change the record",
    "teams": "the teams of a shared server, by name",
    "team_members": "which role belongs to which team",
}
# What a marker keeps of a row's JSON (a message's data, an event's metadata): these
# top-level entries, which name things rather than say them (an import's stamp, the proxy's
# key, the hook and tool that wrote it, the session and place), the ids and names of a
# reply's tool calls (their arguments emptied), and any number or true/false; every other
# entry goes.
KEPT_KEYS = frozenset(
    (
        "claude_import",
        "codex_import",
        "proxy",
        "dispatch",
        "hook",
        "prompt_id",
        "tool_call_id",
        "name",
        "skill",
        "session_id",
        "from",
        "to",
    )
)
_CHUNK = 500  # ids per statement


@contextmanager
def unlocked(conn: Any) -> Iterator[None]:
    """The append-only tables open to this transaction's changes while inside."""
    conn.execute("INSERT INTO forgetting (id) VALUES (1)")
    yield
    conn.execute("DELETE FROM forgetting")


def _chunks(ids: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(ids), _CHUNK):
        yield ids[start : start + _CHUNK]


def _marks(ids: list[Any]) -> str:
    return ",".join("?" * len(ids))


# What a forget does to one value: JSON is walked (its strings changed, its shape kept),
# any other text changed whole.


def _walk(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, dict):
        return {change(k): _walk(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, change) for v in value]
    return change(value) if isinstance(value, str) else value


def _json(text: str | None) -> Any:
    """``text`` parsed when it is a JSON object or array, else None."""
    if not text or text[:1] not in "{[":
        return None
    try:
        parsed = jsonio.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _dumped(value: Any) -> str:
    return jsonio.dumps(value, ensure_ascii=False)


def blanked(text: str | None) -> str | None:
    """What a marker keeps of a row's JSON (KEPT_KEYS); None when nothing is kept."""
    data = _json(text)
    if not isinstance(data, dict):
        return None
    kept: dict[str, Any] = {}
    for key, value in data.items():
        if key == "tool_calls" and isinstance(value, list):
            kept[key] = [
                {"id": c.get("id"), "name": c.get("name"), "arguments": {}}
                for c in value
                if isinstance(c, dict)
            ]
        elif key in KEPT_KEYS or isinstance(value, bool | int | float):
            kept[key] = value
    return _dumped(kept) if kept else None


def spellings(text: str) -> tuple[str, ...]:
    """How ``text`` may be stored: as it is, and inside JSON (escaped, with or without
    non-ASCII characters as escapes)."""
    escaped = json.dumps(text, ensure_ascii=False)[1:-1]
    ascii_escaped = json.dumps(text)[1:-1]
    return tuple(dict.fromkeys((text, escaped, ascii_escaped)))


def scrubbed(value: str | None, text: str) -> str | None:
    """``value`` with every spelling of ``text`` replaced by MARKER: in the strings (and
    keys) of JSON, whose shape stays, then in what is left (text, or a string that spans
    two of JSON's)."""
    if value is None:
        return None
    data = _json(value)
    changed = value if data is None else _dumped(_walk(data, lambda s: s.replace(text, MARKER)))
    for spelling in spellings(text):
        changed = changed.replace(spelling, MARKER)
    return changed


# The search indexes, kept in step with the rows a forget changes.

_VIEWS = {"messages": "search_messages", "events": "search_events"}
_PG_WORDS = {
    "messages": "UPDATE message_words SET words = vybe_message_words(m) FROM messages AS m"
    " WHERE m.id = message_words.id AND m.id IN ({})",
    "events": "UPDATE event_words SET words = vybe_event_words(e) FROM events AS e"
    " WHERE e.id = event_words.id AND e.id IN ({})",
}


def _indexed(conn: Any, source: str, ids: list[int]) -> list[int]:
    """The ids of ``ids`` the SQLite index holds already (the backlog's are indexed later,
    from the rows as they will be then)."""
    row = conn.execute("SELECT below FROM search_backlog WHERE source = ?", (source,)).fetchone()
    return [i for i in ids if row is None or i >= row[0]]


def _fts(conn: Any, source: str, ids: list[int], delete: bool) -> None:
    view = _VIEWS[source]
    for chunk in _chunks(ids):
        where = f"FROM {view} WHERE id IN ({_marks(chunk)})"
        if delete:
            conn.execute(
                "INSERT INTO search_words (search_words, rowid, body, tags)"
                f" SELECT 'delete', hit, words, tags {where}",
                chunk,
            )
            conn.execute(
                "INSERT INTO search_literal (search_literal, rowid, body)"
                f" SELECT 'delete', hit, literal {where}",
                chunk,
            )
        else:
            conn.execute(
                f"INSERT INTO search_words (rowid, body, tags) SELECT hit, words, tags {where}",
                chunk,
            )
            conn.execute(
                f"INSERT INTO search_literal (rowid, body) SELECT hit, literal {where}", chunk
            )


def _update(conn: Any, dialect: str, source: str, sql: str, rows: list[tuple[Any, ...]]) -> None:
    """Run ``sql`` over ``rows`` (each ending with its id), the search index following."""
    ids = [r[-1] for r in rows]
    indexed = _indexed(conn, source, ids) if dialect == "sqlite" and source in _VIEWS else []
    if indexed:
        _fts(conn, source, indexed, delete=True)
    conn.executemany(sql, rows)
    if indexed:
        _fts(conn, source, indexed, delete=False)
    if dialect != "sqlite" and source in _PG_WORDS:
        for chunk in _chunks(ids):
            conn.execute(_PG_WORDS[source].format(_marks(chunk)), chunk)


def optimize(conn: Any) -> None:
    """Merge each FTS5 index into one segment: no segment keeps a forgotten row's words."""
    conn.execute("INSERT INTO search_words (search_words) VALUES ('optimize')")
    conn.execute("INSERT INTO search_literal (search_literal) VALUES ('optimize')")


# Which rows: every selection is a WHERE clause over one table and its parameters.


class Where:
    """A WHERE clause per table (None: nothing of that table is named)."""

    def __init__(self, clauses: dict[str, tuple[str, tuple[Any, ...]]]) -> None:
        self.clauses = clauses

    def of(self, table: str) -> tuple[str, tuple[Any, ...]] | None:
        return self.clauses.get(table)


def _session_events(conn: Any, sessions: list[str]) -> list[int]:
    """The events that name one of the record sessions (a hook's metadata names the agent's
    own id, ``<id>`` of ``claude:<id>``)."""
    names = {s for s in sessions} | {s.partition(":")[2] for s in sessions if ":" in s}
    found: list[int] = []
    for name in sorted(names):
        rows = conn.execute(
            "SELECT id, metadata FROM events WHERE instr(metadata, ?) > 0", (name,)
        ).fetchall()
        for event_id, metadata in rows:
            try:
                named = jsonio.loads(metadata).get("session_id")
            except (ValueError, AttributeError):
                continue
            if named == name:
                found.append(event_id)
    return sorted(set(found))


def project_sessions(conn: Any, project: str) -> list[str]:
    """The record sessions a project's events name (a hook's event names its session)."""
    names: set[str] = set()
    for (metadata,) in conn.execute(
        "SELECT metadata FROM events WHERE project_id = ? AND instr(metadata, 'session_id') > 0",
        (project,),
    ).fetchall():
        try:
            named = jsonio.loads(metadata).get("session_id")
        except (ValueError, AttributeError):
            continue
        if isinstance(named, str):
            names.add(named)
    known = [r[0] for r in conn.execute("SELECT id FROM sessions").fetchall()]
    return sorted(s for s in known if s in names or s.partition(":")[2] in names)


def _in(column: str, values: list[Any]) -> tuple[str, tuple[Any, ...]]:
    return (f"{column} IN ({_marks(values)})", tuple(values)) if values else ("0 = 1", ())


def _attempts(
    sql: str, params: tuple[Any, ...], checkpoints: tuple[str, tuple[Any, ...]]
) -> tuple[str, tuple[Any, ...]]:
    """The attempts ``sql`` names, and those naming a checkpoint that goes."""
    also = f"checkpoint_id IN (SELECT id FROM checkpoints WHERE {checkpoints[0]})"
    return f"({sql}) OR {also}", (*params, *checkpoints[1])


def session_where(conn: Any, sessions: list[str]) -> Where:
    """Everything of these record sessions: their record, the events that name them, what
    was made from them, and the ledger's replies to their hooks (whose request ids name the
    agent's session) or naming them."""
    of_session = _in("session_id", sessions)
    named = [s.partition(":")[2] or s for s in sessions]
    ledger = " OR ".join(["instr(request_id, ?) > 0 OR instr(result_json, ?) > 0"] * len(named))
    return Where(
        {
            "messages": of_session,
            "events": _in("id", _session_events(conn, sessions)),
            "checkpoint_attempts": of_session,
            "checkpoints": of_session,
            "compaction_receipts": of_session,
            "handoff_context": of_session,
            "idempotency": (
                ledger or "0 = 1",
                tuple(v for n, s in zip(named, sessions, strict=True) for v in (n, s)),
            ),
        }
    )


def before_where(
    before: str, tables: tuple[str, ...], project: str | None, sessions: list[str]
) -> Where:
    """What ``tables`` hold from before ``before``: of one project's events and sessions when
    ``project`` is given (the ledger's replies then stay: they name no project)."""
    old = ("created_at < ?", (before,))
    scoped: dict[str, tuple[str, tuple[Any, ...]]] = {}
    for table in tables:
        if project is None:
            scoped[table] = old
        elif table == "events":
            scoped[table] = ("created_at < ? AND project_id = ?", (before, project))
        elif table != "idempotency":
            within = _in("session_id", sessions)
            scoped[table] = (f"created_at < ? AND {within[0]}", (before, *within[1]))
    if "checkpoint_attempts" in scoped and "checkpoints" in scoped:
        scoped["checkpoint_attempts"] = _attempts(
            *scoped["checkpoint_attempts"], scoped["checkpoints"]
        )
    return Where(scoped)


RECORD = ("messages", "events")  # blanked, kept as markers
DERIVED = (  # deleted (attempts before the checkpoints they name)
    "checkpoint_attempts",
    "checkpoints",
    "compaction_receipts",
    "handoff_context",
    "idempotency",
)


def _blank_messages(
    conn: Any, dialect: str, where: tuple[str, tuple[Any, ...]], apply: bool
) -> int:
    rows = conn.execute(
        f"SELECT content_text, content_json, tokens, id FROM messages WHERE {where[0]}", where[1]
    ).fetchall()
    changes = []
    for text, data, tokens, message_id in rows:
        new = (MARKER, blanked(data), min(tokens, MARKER_TOKENS), message_id)
        if (text, data) != new[:2]:
            changes.append(new)
    if apply and changes:
        sql = "UPDATE messages SET content_text = ?, content_json = ?, tokens = ? WHERE id = ?"
        _update(conn, dialect, "messages", sql, changes)
    return len(changes)


def _blank_events(conn: Any, dialect: str, where: tuple[str, tuple[Any, ...]], apply: bool) -> int:
    rows = conn.execute(
        f"SELECT message, metadata, id FROM events WHERE {where[0]}", where[1]
    ).fetchall()
    changes = []
    for message, metadata, event_id in rows:
        new = (MARKER, blanked(metadata), event_id)
        if (message, metadata) != new[:2]:
            changes.append(new)
    if apply and changes:
        sql = "UPDATE events SET message = ?, metadata = ? WHERE id = ?"
        _update(conn, dialect, "events", sql, changes)
    return len(changes)


def _delete(conn: Any, table: str, where: tuple[str, tuple[Any, ...]], apply: bool) -> int:
    if not apply:
        counted = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {where[0]}", where[1])
        return int(counted.fetchone()[0])
    return int(conn.execute(f"DELETE FROM {table} WHERE {where[0]}", where[1]).rowcount)


def forget_rows(conn: Any, dialect: str, where: Where, apply: bool) -> dict[str, int]:
    """Blank the record's rows and delete the derived rows ``where`` names; how many of each
    table (with ``apply`` False, how many it would)."""
    counts: dict[str, int] = {}
    blank = {"messages": _blank_messages, "events": _blank_events}
    for table in (*RECORD, *DERIVED):
        clause = where.of(table)
        if clause is None:
            continue
        if table in blank:
            counts[table] = blank[table](conn, dialect, clause, apply)
        else:
            counts[table] = _delete(conn, table, clause, apply)
    return counts


# --text: the string replaced in every column of words.


def _text_scope(
    table: str, sessions: list[str] | None, project: str | None
) -> tuple[str, tuple[Any, ...]]:
    """The rows of ``table`` a --text of one project looks in (all of them without one)."""
    if project is None or table == "idempotency":
        return "1 = 1", ()
    if table in ("events", "tasks", "artifacts"):
        return "project_id = ?", (project,)
    if table == "projects":
        return "id = ?", (project,)
    if table == "memory":
        return "scope = 'project' AND scope_id = ?", (project,)
    if table == "handoff_context":
        return "task_id IN (SELECT id FROM tasks WHERE project_id = ?)", (project,)
    named = sessions or [""]
    return f"session_id IN ({_marks(named)})", tuple(named)


_KEYS = {"idempotency": ("agent_name", "request_id"), "handoff_context": ("event_id",)}


def forget_text(
    conn: Any,
    dialect: str,
    text: str,
    project: str | None,
    sessions: list[str] | None,
    apply: bool,
) -> dict[str, int]:
    """Replace ``text`` with MARKER in every column of words (of one project's rows, when
    given); how many rows of each table held it."""
    counts: dict[str, int] = {}
    forms = spellings(text)
    for table, columns in WORDS.items():
        key = _KEYS.get(table, ("id",))
        scope, params = _text_scope(table, sessions, project)
        holds = " OR ".join(f"instr({c}, ?) > 0" for c in columns for _ in forms)
        found = conn.execute(
            f"SELECT {', '.join((*columns, *key))} FROM {table} WHERE ({scope}) AND ({holds})",
            (*params, *[f for _ in columns for f in forms]),
        ).fetchall()
        counts[table] = len(found)
        if not (apply and found):
            continue
        width = len(columns)
        changes = [
            (*(scrubbed(v, text) for v in values[:width]), *values[width:])
            for values in (tuple(row) for row in found)
        ]
        sets = ", ".join(f"{c} = ?" for c in columns)
        if table == "tasks":  # a writer holding the old version retries
            sets += ", version = version + 1"
        sql = f"UPDATE {table} SET {sets} WHERE {' AND '.join(f'{k} = ?' for k in key)}"
        _update(conn, dialect, table, sql, changes)
    return counts


# SQLite's files: the freed pages overwritten, the WAL emptied into the database.


def secure_delete(conn: Any, on: bool) -> int:
    """Set SQLite's secure_delete (freed pages overwritten with zeros); the setting before."""
    before = int(conn.execute("PRAGMA secure_delete").fetchone()[0])
    conn.execute(f"PRAGMA secure_delete = {int(on)}")
    return before


def truncate_wal(conn: Any) -> JSONObject:
    """Copy the whole WAL into the database and empty it; ``busy`` when a reader kept some."""
    busy, log, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return {"busy": bool(busy), "wal_frames": log, "checkpointed_frames": done}
