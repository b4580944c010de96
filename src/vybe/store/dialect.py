"""SQLite's SQL as PostgreSQL reads it: the one place the two dialects meet.

The store writes every statement once, for SQLite; on PostgreSQL each statement passes
through ``to_postgres`` (once per distinct text, then cached), which rewrites what the two
spell differently:

- placeholders: ``?`` becomes ``%s`` and a literal ``%`` becomes ``%%`` (psycopg's style);
- ``x IS ?`` / ``x IS NOT ?`` (SQLite's null-safe equality) become ``IS [NOT] DISTINCT FROM``;
- scalar ``MAX(a, b)`` / ``MIN(a, b)`` become ``GREATEST`` / ``LEAST``;
- ``julianday(t)`` becomes days since the julian epoch from ``date_part('epoch', t)``;
- ``instr(a, b)`` becomes ``strpos(a, b)``; ``ROUND(x, n)`` rounds ``x`` as numeric;
- ``CAST(x AS INTEGER)`` truncates as SQLite does (PostgreSQL would round);
- a subquery in FROM gets the alias PostgreSQL requires; ``CROSS JOIN t ON`` (SQLite's
  planner hint) becomes ``JOIN t ON``;
- a comment ``/*postgresql: CLAUSE*/`` becomes ``CLAUSE`` (``FOR UPDATE SKIP LOCKED``), so a
  statement can carry what only PostgreSQL has at no cost to SQLite;
- the few PRAGMAs the store runs map to what the server reports instead.

Only the standard library: the SQLite path never imports this module.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r"""
    (?P<string>'(?:[^']|'')*')
  | (?P<quoted>"(?:[^"]|"")*")
  | (?P<comment>/\*.*?\*/|--[^\n]*)
  | (?P<space>\s+)
  | (?P<word>[A-Za-z_][A-Za-z_0-9$]*(?:\.[A-Za-z_*][A-Za-z_0-9$]*)*)
  | (?P<number>\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)
  | (?P<op><>|<=|>=|!=|\|\||::|[^\sA-Za-z_0-9])
    """,
    re.VERBOSE | re.DOTALL,
)

# What may follow a subquery in FROM when it has no alias yet.
_ENDS_SOURCE = {
    "where",
    "group",
    "order",
    "union",
    "limit",
    "join",
    "cross",
    "left",
    "inner",
    "on",
    "having",
    "except",
    "intersect",
    "window",
}
_PRAGMAS = {
    # The server checkpoints its own write-ahead log: nothing is left for a client to copy.
    "wal_checkpoint": "SELECT 0, 0, 0",
    # No dangling reference can exist: PostgreSQL checks foreign keys on every statement.
    "foreign_key_check": "SELECT 1 WHERE FALSE",
}
PRAGMA = re.compile(r"\s*PRAGMA\s+([a-z_]+)", re.IGNORECASE)
HINT = "/*postgresql:"

_cache: dict[str, str] = {}


class Token:
    """One lexical token: its kind (``string``, ``word``, ``op``, ...) and its text."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind, self.text = kind, text

    @property
    def lower(self) -> str:
        return self.text.lower() if self.kind == "word" else self.text


class Group(list["Token | Group"]):
    """The tokens between a pair of parentheses."""


def _tokens(sql: str) -> list[Token]:
    return [Token(m.lastgroup or "op", m.group()) for m in _TOKEN.finditer(sql)]


def _nest(tokens: list[Token]) -> Group:
    """Tokens as a tree: each parenthesised run becomes one Group."""
    stack = [Group()]
    for token in tokens:
        if token.text == "(":
            stack.append(Group())
        elif token.text == ")":
            inner = stack.pop()
            stack[-1].append(inner)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise ValueError("unbalanced parentheses")
    return stack[0]


def _significant(nodes: list[Token | Group], start: int) -> int | None:
    """The index of the next node at or after ``start`` that is not space or a comment."""
    for i in range(start, len(nodes)):
        node = nodes[i]
        if isinstance(node, Group) or node.kind not in ("space", "comment"):
            return i
    return None


def _arguments(group: Group) -> list[str]:
    """A call's arguments, each rendered, split at the top-level commas."""
    parts: list[list[Token | Group]] = [[]]
    for node in group:
        if isinstance(node, Token) and node.text == ",":
            parts.append([])
        else:
            parts[-1].append(node)
    return [_render(part).strip() for part in parts]


def _cast(args: list[str]) -> str | None:
    match = re.fullmatch(r"(.*)\s+AS\s+INTEGER", args[0], re.IGNORECASE | re.DOTALL)
    if len(args) != 1 or not match:
        return None
    return f"CAST(TRUNC({match.group(1)}) AS BIGINT)"


def _call(name: str, args: list[str]) -> str | None:
    """The PostgreSQL spelling of a call SQLite spells differently, or None to keep it."""
    if name in ("max", "min") and len(args) >= 2:
        return ("GREATEST" if name == "max" else "LEAST") + "(" + ", ".join(args) + ")"
    if name == "julianday" and len(args) == 1:
        return f"(date_part('epoch', CAST({args[0]} AS TIMESTAMPTZ)) / 86400.0 + 2440587.5)"
    if name == "instr" and len(args) == 2:
        return f"strpos({args[0]}, {args[1]})"
    if name == "round" and len(args) == 2:
        return f"ROUND(CAST({args[0]} AS NUMERIC), {args[1]})"
    if name == "cast":
        return _cast(args)
    return None


def _needs_alias(nodes: list[Token | Group], i: int, group: Group) -> bool:
    """Whether ``group``, at ``i``, is a subquery in FROM or JOIN that has no alias."""
    first = _significant(group, 0)
    head = group[first] if first is not None else None
    if head is None or isinstance(head, Group) or head.lower != "select":
        return False
    before = _significant_back(nodes, i - 1)
    token = nodes[before] if before is not None else None
    if not isinstance(token, Token) or token.lower not in ("from", "join"):
        return False
    after = _significant(nodes, i + 1)
    if after is None:
        return True
    node = nodes[after]
    return isinstance(node, Token) and (node.lower in _ENDS_SOURCE or node.text in (",", ";"))


def _significant_back(nodes: list[Token | Group], start: int) -> int | None:
    for i in range(start, -1, -1):
        node = nodes[i]
        if isinstance(node, Group):
            return None
        if node.kind not in ("space", "comment"):
            return i
    return None


def _joins_on(nodes: list[Token | Group], i: int | None) -> bool:
    """Whether ``CROSS`` is followed by ``JOIN <table> [alias] ON``."""
    seen: list[str] = []
    while i is not None and len(seen) < 4:
        node = nodes[i]
        if isinstance(node, Group):
            return False
        seen.append(node.lower)
        i = _significant(nodes, i + 1)
    return bool(seen) and seen[0] == "join" and "on" in seen[2:]


class _Counter:
    aliases = 0


def _render(nodes: list[Token | Group]) -> str:
    out: list[str] = []
    skip = -1
    for i, node in enumerate(nodes):
        if i <= skip:
            continue
        if isinstance(node, Group):
            out.append("(" + _render(node) + ")")
            if _needs_alias(nodes, i, node):
                _Counter.aliases += 1
                out.append(f" AS _sub{_Counter.aliases}")
            continue
        nxt = _significant(nodes, i + 1)
        call = nodes[nxt] if nxt is not None else None
        if node.kind == "word" and nxt is not None and isinstance(call, Group):
            rewritten = _call(node.lower, _arguments(call))
            if rewritten is not None:
                out.append(rewritten)
                skip = nxt
                continue
        if node.lower == "is" and nxt is not None:
            follow = nodes[nxt]
            if isinstance(follow, Token) and follow.text == "?":
                out.append("IS NOT DISTINCT FROM %s")
                skip = nxt
                continue
            after = _significant(nodes, nxt + 1)
            then = nodes[after] if after is not None else None
            if (
                isinstance(follow, Token)
                and follow.lower == "not"
                and after is not None
                and isinstance(then, Token)
                and then.text == "?"
            ):
                out.append("IS DISTINCT FROM %s")
                skip = after
                continue
        if node.lower == "cross" and nxt is not None and _joins_on(nodes, nxt):
            skip = nxt
            out.append("JOIN")
            continue
        out.append(_token(node))
    return "".join(out)


def _token(token: Token) -> str:
    if token.kind == "comment" and token.text.startswith(HINT):
        return token.text[len(HINT) : -2].strip()
    if token.text == "?":
        return "%s"
    if token.kind in ("string", "quoted", "op") and "%" in token.text:
        return token.text.replace("%", "%%")
    return token.text


def to_postgres(sql: str) -> str:
    """``sql`` as PostgreSQL (and psycopg) take it; the same text always gives the same."""
    cached = _cache.get(sql)
    if cached is not None:
        return cached
    pragma = PRAGMA.match(sql)
    if pragma:
        name = pragma.group(1).lower()
        if name not in _PRAGMAS:
            raise ValueError(f"PRAGMA {name} has no PostgreSQL counterpart")
        translated = _PRAGMAS[name]
    else:
        _Counter.aliases = 0
        translated = _render(_nest(_tokens(sql)))
    _cache[sql] = translated
    return translated
