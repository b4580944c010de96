"""memory set|get|list|delete|pin|gc, and the shorthand remember."""

from __future__ import annotations

from typing import Any

from vybe.actions import memory
from vybe.cli import types
from vybe.cli.registry import Registry
from vybe.store.memory import MemoryQuery

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse


def _input(args: argparse.Namespace, key: str, value: str) -> memory.MemoryInput:
    return memory.MemoryInput(
        key=key,
        value=value,
        value_type=getattr(args, "type", None),
        scope=args.scope,
        scope_id=args.scope_id,
        kind=args.kind,
        pinned=args.pin,
        half_life_days=getattr(args, "half_life_days", None),
        expires_in=args.expires_in,
        source_task_id=getattr(args, "source_task_id", None),
        supersedes=args.supersedes,
    )


def set_(inv: Any, args: argparse.Namespace) -> dict:
    spec = _input(args, args.key, args.value)
    return memory.set_memory(inv.store, inv.agent, inv.request_id, spec)


def remember(inv: Any, args: argparse.Namespace) -> dict:
    key, value = memory.parse_remember(args.entry)
    return memory.set_memory(inv.store, inv.agent, inv.request_id, _input(args, key, value))


def get(inv: Any, args: argparse.Namespace) -> dict:
    return memory.get(inv.store, inv.agent, key=args.key, scope=args.scope, scope_id=args.scope_id)


def list_(inv: Any, args: argparse.Namespace) -> dict:
    query = MemoryQuery(
        scope=args.scope,
        scope_id=args.scope_id,
        kind=args.kind,
        include_superseded=args.include_superseded,
        limit=args.limit,
    )
    return memory.list_memory(inv.store, inv.agent, query)


def delete(inv: Any, args: argparse.Namespace) -> dict:
    return memory.delete(
        inv.store, inv.agent, inv.request_id, key=args.key, scope=args.scope, scope_id=args.scope_id
    )


def pin(inv: Any, args: argparse.Namespace) -> dict:
    return memory.pin(
        inv.store,
        inv.agent,
        inv.request_id,
        key=args.key,
        scope=args.scope,
        scope_id=args.scope_id,
        pinned=not args.unpin,
    )


def gc(inv: Any, args: argparse.Namespace) -> dict:
    return memory.gc(inv.store, args.limit)


def _scope(p: argparse.ArgumentParser, default: str | None = "global") -> None:
    p.add_argument("-s", "--scope", default=default, help="global|project|task|agent")
    p.add_argument("--scope-id", help="project or task id (the focus by default)")


def _writing(p: argparse.ArgumentParser) -> None:
    _scope(p)
    p.add_argument("--kind", default="fact", help="fact|directive|lesson")
    p.add_argument("--pin", action="store_true", help="pin it (only `memory pin --unpin` clears)")
    p.add_argument("--expires-in", help="time to live, e.g. 24h, 7d, 2w")
    p.add_argument("--supersedes", metavar="KEY", help="the entry (same scope) this corrects")


def register(registry: Registry) -> None:
    registry.group("memory", "Scoped memory: facts, directives and lessons agents keep.")
    p = registry.command("memory set", set_, "Store or overwrite an entry.", mutates=True)
    p.add_argument("-k", "--key", required=True)
    p.add_argument("-v", "--value", required=True)
    p.add_argument("-t", "--type", help="string|number|boolean|json|array (detected)")
    _writing(p)
    p.add_argument("--half-life-days", type=types.number, help="decay half-life (-1: kind default)")
    p.add_argument("--source-task-id")

    p = registry.command("remember", remember, 'Shorthand: remember "key=value".', mutates=True)
    p.add_argument("entry", help="key=value")
    _writing(p)

    p = registry.command("memory get", get, "Read one entry (counts as an access).")
    p.add_argument("-k", "--key", required=True)
    _scope(p)

    p = registry.command("memory list", list_, "List live entries.")
    _scope(p, None)
    p.add_argument("--kind")
    p.add_argument("--include-superseded", action="store_true", help="show corrected entries")
    p.add_argument("--limit", type=types.limit, default=50)

    p = registry.command("memory delete", delete, "Delete an entry.", mutates=True)
    p.add_argument("-k", "--key", required=True)
    _scope(p)

    p = registry.command("memory pin", pin, "Pin (or --unpin) an entry.", mutates=True)
    p.add_argument("-k", "--key", required=True)
    _scope(p)
    p.add_argument("--unpin", action="store_true")

    p = registry.command("memory gc", gc, "Delete expired entries.", mutates=True)
    p.add_argument("--limit", type=types.bounded_int(1, memory.GC_LIMIT_MAX), default=500)
