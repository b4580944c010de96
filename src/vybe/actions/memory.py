"""Memory: scoped key/value entries with TTL, sticky pin, kinds, decay and corrections."""

from __future__ import annotations

import math
import re
import sqlite3
from typing import TYPE_CHECKING

from vybe import clock, jsonio, limits
from vybe.errors import DatabaseUnavailable, InvalidInput, NotFound, acting
from vybe.store import Store
from vybe.store import agents as agent_rows
from vybe.store import events as event_rows
from vybe.store import memory as memory_rows
from vybe.store import projects as project_rows
from vybe.store import tasks as task_rows
from vybe.text import shorten
from vybe.tuples import Row

if TYPE_CHECKING:
    from typing import Any

SCOPES = ("global", "project", "task", "agent")
KINDS = ("fact", "directive", "lesson")
TYPES = ("string", "number", "boolean", "json", "array")
KEY_MAX = 256
VALUE_MAX = 16384
HALF_LIFE_MAX = 1e9
GC_LIMIT_MAX = 100_000
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")  # JSON digits: ASCII only


class MemoryInput(Row):
    """What a caller asks to store; ``check`` validates it before any write. A row, not a
    dataclass: ``vybe memory get`` would pay for dataclasses and inspect at start-up."""

    __slots__ = ()
    key: Any
    value: Any
    value_type: Any = None
    scope: Any = "global"
    scope_id: Any = None
    kind: Any = "fact"
    pinned: Any = False
    half_life_days: Any = None
    expires_in: Any = None
    expires_at: Any = None
    source_task_id: Any = None
    source_event_id: Any = None
    supersedes: Any = None


def _typed(doc: dict, name: str, kind: type | tuple[type, ...], label: str) -> Any:
    value = doc.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise InvalidInput(f"{name} must be {label}", context={"field": name})
    return value


def from_document(doc: dict) -> MemoryInput:
    """A memory entry of a JSON document (push); a non-string value is kept as JSON text."""
    value = doc.get("value")
    if value is None:
        raise InvalidInput("each memory needs a value", context={"field": "value"})
    if not isinstance(doc.get("pinned", False), bool):
        raise InvalidInput("pinned must be true or false", context={"field": "pinned"})
    strings = ("key", "value_type", "scope", "scope_id", "kind", "expires_in", "expires_at")
    for name in (*strings, "source_task_id", "supersedes"):
        _typed(doc, name, str, "a string")
    return MemoryInput(
        key=doc.get("key") or "",
        value=value if isinstance(value, str) else jsonio.dumps(value, ensure_ascii=False),
        value_type=doc.get("value_type"),
        scope=doc.get("scope") or "global",
        scope_id=doc.get("scope_id"),
        kind=doc.get("kind") or "fact",
        pinned=bool(doc.get("pinned")),
        half_life_days=_typed(doc, "half_life_days", (int, float), "a number"),
        expires_in=doc.get("expires_in"),
        expires_at=doc.get("expires_at"),
        source_task_id=doc.get("source_task_id"),
        source_event_id=_typed(doc, "source_event_id", int, "an integer"),
        supersedes=doc.get("supersedes"),
    )


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise InvalidInput(
            f"unknown {name} {value!r}",
            context={"field": name, "value": value, "allowed": list(allowed)},
            suggested_action=f"use one of: {', '.join(allowed)}",
        )
    return value


def _is_number(text: str) -> bool:
    """A JSON number the store can give back: finite, an integer within 64 bits."""
    if not _NUMBER.fullmatch(text):
        return False
    if text.lstrip("-").isdigit():
        return len(text) <= 20 and limits.INTEGER_MIN <= int(text) <= limits.INTEGER_MAX
    return math.isfinite(float(text))


def _json_kind(text: str) -> str | None:
    """ "array" or "json" for a JSON object or array the store can give back, else None."""
    try:
        parsed = limits.json_value("value", jsonio.loads(text))
    except (ValueError, RecursionError, InvalidInput):  # not JSON, too deep, or out of range
        return None
    return "array" if isinstance(parsed, list) else "json"


def detect_type(value: str) -> str:
    """The type a value reads as: boolean, number, JSON object, JSON array, else string
    (a number or JSON the store could not give back as such is a string)."""
    text = value.strip()
    if text in ("true", "false"):
        return "boolean"
    if _is_number(text):
        return "number"
    if text[:1] in ("{", "["):
        return _json_kind(text) or "string"
    return "string"


def _check_type(value: str, value_type: str) -> None:
    text = value.strip()
    ok = {
        "string": True,
        "boolean": text in ("true", "false"),
        "number": _is_number(text),
        "json": detect_type(text) in ("json", "array"),
        "array": detect_type(text) == "array",
    }[value_type]
    if not ok:
        raise InvalidInput(
            f"value {shorten(value, 60)!r} is not a valid {value_type}",
            context={"field": "value", "value_type": value_type},
        )


def check_scope(scope: str) -> str:
    return _choice("scope", scope, SCOPES)


def _refuse_global_scope_id(scope: str | None, scope_id: str | None) -> None:
    """Every memory command reads scope and id alike: an id with the (default) global scope
    is a mistake, never a silent change to the global entry."""
    if scope == "global" and scope_id:
        raise InvalidInput(
            "global memory takes no scope id",
            context={"field": "scope_id", "scope": scope},
            suggested_action="pass --scope project or --scope task with --scope-id",
        )


def check(spec: MemoryInput) -> MemoryInput:
    """Validate everything that needs no database, and settle the value type."""
    limits.text("key", spec.key, KEY_MAX, required=True)
    limits.text("value", spec.value, VALUE_MAX)
    check_scope(spec.scope)
    _choice("kind", spec.kind, KINDS)
    if spec.scope_id is not None:
        limits.text("scope_id", spec.scope_id, limits.PATH_MAX)
    _refuse_global_scope_id(spec.scope, spec.scope_id)
    value_type = spec.value_type or detect_type(spec.value)
    _choice("value_type", value_type, TYPES)
    _check_type(spec.value, value_type)
    half_life = spec.half_life_days
    if half_life is not None and half_life == -1:
        half_life = None
    if half_life is not None and not (math.isfinite(half_life) and 0 < half_life <= HALF_LIFE_MAX):
        raise InvalidInput(
            f"half_life_days must be a positive number of days (or -1), not {half_life}",
            context={"field": "half_life_days"},
        )
    if spec.expires_in is not None and spec.expires_at is not None:
        raise InvalidInput("give expires_in or expires_at, not both")
    if spec.expires_in is not None:
        _duration(spec.expires_in)
    if spec.expires_at is not None:
        _timestamp(spec.expires_at)
    if spec.supersedes is not None:
        limits.text("supersedes", spec.supersedes, KEY_MAX, required=True)
    return spec._replace(value_type=value_type, half_life_days=half_life)


def _duration(text: str) -> Any:
    try:
        return clock.parse_duration(text)
    except ValueError as exc:
        raise InvalidInput(str(exc), context={"field": "expires_in"}) from None


def _timestamp(text: str) -> str:
    try:
        return clock.iso(clock.parse_iso(text))
    except ValueError:
        raise InvalidInput(
            f"expires_at {text!r} is not a UTC time like 2026-01-31T12:00:00.000000Z",
            context={"field": "expires_at"},
        ) from None


def _not_found(what: str, ident: str) -> NotFound:
    return NotFound(
        f"no {what} {ident!r}",
        context={"entity": what, "id": ident},
        suggested_action=f"check the {what} id (`vybe {what} list`)",
    )


def resolve_scope(
    conn: sqlite3.Connection, agent: str | None, scope: str, scope_id: str | None
) -> tuple[str, dict | None]:
    """The scope id to use (the focus by default) and, for task scope, the task. An agent
    is needed only to default the scope id (its name, its focus): a read with no agent named
    still reads an entry whose scope id is given (AGENT_REQUIRED otherwise)."""
    check_scope(scope)
    _refuse_global_scope_id(scope, scope_id)
    if scope == "global":
        return "", None
    if scope == "agent":
        return (scope_id or "").strip() or acting(agent), None
    if not scope_id:
        state = agent_rows.get(conn, acting(agent)) or {}
        scope_id = state.get("focus_task_id" if scope == "task" else "focus_project_id")
    if not scope_id:
        raise InvalidInput(
            f"{scope} memory needs --scope-id (this agent has no focus {scope})",
            context={"field": "scope_id", "scope": scope},
        )
    if scope == "task":
        task = task_rows.get(conn, scope_id)
        if task is None:
            raise _not_found("task", scope_id)
        return scope_id, task
    if project_rows.get(conn, scope_id) is None:
        raise _not_found("project", scope_id)
    return scope_id, None


def _expiry(spec: MemoryInput, now: Any) -> str | None:
    if spec.expires_in is not None:
        return clock.iso(clock.after(now, _duration(spec.expires_in)))
    return _timestamp(spec.expires_at) if spec.expires_at is not None else None


def _event(conn: sqlite3.Connection, agent: str, kind: str, entry: dict, task: dict | None) -> int:
    project = entry["scope_id"] if entry["scope"] == "project" else None
    return event_rows.insert(
        conn,
        event_rows.NewEvent(
            kind=kind,
            agent=agent,
            message=shorten(f"{entry['key']} = {entry['value']}", 500),
            task_id=task["id"] if task else None,
            project_id=task["project_id"] if task else project,
            metadata={
                "memory_id": entry["id"],
                "key": entry["key"],
                "scope": entry["scope"],
                "scope_id": entry["scope_id"],
                "kind": entry["kind"],
                "pinned": bool(entry["pinned"]),
                "supersedes": entry.get("supersedes"),
            },
        ),
        clock.now_iso(),
    )


def write(conn: sqlite3.Connection, agent: str, spec: MemoryInput) -> dict:
    """Upsert one checked entry inside the caller's transaction, with its event."""
    scope_id, task = resolve_scope(conn, agent, spec.scope, spec.scope_id)
    if spec.source_task_id is not None and task_rows.get(conn, spec.source_task_id) is None:
        raise _not_found("task", spec.source_task_id)
    now = clock.now()
    at = clock.iso(now)
    old = None
    if spec.supersedes is not None:
        old = memory_rows.get_live(conn, spec.scope, scope_id, spec.supersedes, at)
        if old is None:
            raise _not_found("memory", spec.supersedes)
    row = memory_rows.MemoryRow(
        memory_id=clock.new_id("mem"),
        key=spec.key,
        value=spec.value,
        value_type=spec.value_type or detect_type(spec.value),
        scope=spec.scope,
        scope_id=scope_id,
        kind=spec.kind,
        pinned=spec.pinned or bool(old and old["pinned"]),
        half_life_days=spec.half_life_days,
        expires_at=_expiry(spec, now),
        source_event_id=spec.source_event_id,
        source_task_id=spec.source_task_id,
        supersedes=old["id"] if old else None,
    )
    same_key = old is not None and old["key"] == memory_rows.stored_key(spec.key)
    if old is not None and same_key:
        memory_rows.supersede(conn, old["id"], row.memory_id, at)
    entry = memory_rows.upsert(conn, row, at)
    if old is not None and not same_key:
        memory_rows.supersede(conn, old["id"], entry["id"], at)
    return {"memory": entry, "event_id": _event(conn, agent, "memory_set", entry, task)}


def set_memory(store: Store, agent: str, request_id: str, spec: MemoryInput) -> dict:
    checked = check(spec)
    return store.idempotent(
        agent, request_id, "memory.set", checked._asdict(), lambda c: write(c, agent, checked)
    )


def parse_remember(text: str) -> tuple[str, str]:
    """``key=value`` (the value may contain ``=``)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise InvalidInput(
            f"remember needs key=value, got {shorten(text, 60)!r}",
            context={"field": "entry"},
            suggested_action='write it as `vybe remember "key=value"`',
        )
    return key.strip(), value


def _require_live(conn: sqlite3.Connection, scope: str, scope_id: str, key: str) -> dict:
    entry = memory_rows.get_live(conn, scope, scope_id, key, clock.now_iso())
    if entry is None:
        raise NotFound(
            f"no live memory {key!r} in {scope} scope",
            context={"entity": "memory", "key": key, "scope": scope, "scope_id": scope_id},
            suggested_action="run `vybe memory list` to see the keys",
        )
    return entry


def get(store: Store, agent: str | None, *, key: str, scope: str, scope_id: str | None) -> dict:
    """Read one entry; a real read, so it counts as an access where the store can be
    written (on a read-only store the entry is still read, its count left as it was)."""
    limits.text("key", key, KEY_MAX, required=True)
    with store.snapshot() as conn:
        resolved, _ = resolve_scope(conn, agent, scope, scope_id)
        entry = _require_live(conn, scope, resolved, key)

    def count(conn: sqlite3.Connection) -> dict | None:
        memory_rows.touch(conn, [entry["id"]], clock.now_iso())
        return memory_rows.get_live(conn, scope, resolved, key, clock.now_iso())

    try:
        return {"memory": store.transact(count) or entry}
    except DatabaseUnavailable:  # read-only: the access count is best effort
        return {"memory": entry}


def list_memory(store: Store, agent: str | None, query: memory_rows.MemoryQuery) -> dict:
    if query.scope is not None:
        check_scope(query.scope)
        _refuse_global_scope_id(query.scope, query.scope_id)
    if query.kind is not None:
        _choice("kind", query.kind, KINDS)
    with store.snapshot() as conn:
        if query.scope is not None and query.scope_id is None:
            resolved, _ = resolve_scope(conn, agent, query.scope, None)
            query = query._replace(scope_id=resolved)
        entries = memory_rows.select(conn, query, clock.now_iso())
    return {"count": len(entries), "memories": entries}


def delete(
    store: Store, agent: str, request_id: str, *, key: str, scope: str, scope_id: str | None
) -> dict:
    """Delete the live entry; deleting a missing one succeeds with ``deleted: false``."""
    limits.text("key", key, KEY_MAX, required=True)

    def run(conn: sqlite3.Connection) -> dict:
        resolved, task = resolve_scope(conn, agent, scope, scope_id)
        entry = memory_rows.get_live(conn, scope, resolved, key, clock.now_iso())
        if entry is None:
            return {"key": key, "scope": scope, "scope_id": resolved, "deleted": False}
        memory_rows.delete(conn, entry["id"])
        event_id = _event(conn, agent, "memory_deleted", entry, task)
        return {
            "key": key,
            "scope": scope,
            "scope_id": resolved,
            "deleted": True,
            "event_id": event_id,
        }

    args = {"key": key, "scope": scope, "scope_id": scope_id}
    return store.idempotent(agent, request_id, "memory.delete", args, run)


def pin(
    store: Store,
    agent: str,
    request_id: str,
    *,
    key: str,
    scope: str,
    scope_id: str | None,
    pinned: bool = True,
) -> dict:
    """The only way to unpin: ``memory pin --unpin``."""
    limits.text("key", key, KEY_MAX, required=True)

    def run(conn: sqlite3.Connection) -> dict:
        resolved, task = resolve_scope(conn, agent, scope, scope_id)
        entry = _require_live(conn, scope, resolved, key)
        updated = memory_rows.set_pinned(conn, entry["id"], pinned, clock.now_iso())
        kind = "memory_pinned" if pinned else "memory_unpinned"
        return {"memory": updated, "event_id": _event(conn, agent, kind, updated, task)}

    args = {"key": key, "scope": scope, "scope_id": scope_id, "pinned": pinned}
    return store.idempotent(agent, request_id, "memory.pin", args, run)


def gc(store: Store, limit: int = 500) -> dict:
    """Delete up to ``limit`` expired entries (expired entries are never returned anyway)."""
    if not 1 <= limit <= GC_LIMIT_MAX:
        raise InvalidInput(f"limit must be within 1..{GC_LIMIT_MAX}", context={"field": "limit"})
    deleted = store.transact(lambda conn: memory_rows.gc(conn, clock.now_iso(), limit))
    return {"deleted": deleted, "limit": limit}
