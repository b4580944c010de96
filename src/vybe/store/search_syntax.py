"""The word-query language of ``vybe search``, parsed once for every store.

A query is terms — words, ``"quoted phrases"`` (``""`` is a quote inside one), either one
ending in ``*`` for a prefix — joined by ``AND`` (also implied between neighbours), ``OR``
and ``NOT`` (binary: ``a NOT b`` is a without b), grouped with parentheses. Operators are
upper case; ``and``, ``or``, ``not`` are words. As in SQLite's FTS5, NOT binds tightest,
then AND, then OR.

A word written ``-word`` (or ``-"a phrase"``) is left out, as in a web search: ``deploy
-staging`` is ``deploy NOT staging``, wherever the ``-word`` stands among the words it is
left out of; a query of nothing but left-out words is refused. A term of punctuation alone
(``session - tracking``, ``what ?``) holds no word the index could match and is dropped; a
query of nothing but punctuation is refused.

``parse`` turns the person's text into a tree or refuses it (INVALID_INPUT); each store
writes the tree in its own engine's terms: ``fts5`` here, PostgreSQL's tsquery in
vybe.store.pg_search. Every term reaches the engine quoted, as text to tokenize, never as
syntax: no punctuation can name a column or an operator of the index.
"""

from __future__ import annotations

from vybe.errors import InvalidInput
from vybe.tuples import Row

MAX_DEPTH = 32  # parentheses nested deeper are refused (the parsers recurse)
OPERATORS = ("AND", "OR", "NOT")
EXCLUDE = "-"  # the token of a word written ``-word``


class Term(Row):
    """A word or a phrase (its text as written), matched as a prefix when ``prefix``."""

    __slots__ = ()
    text: str
    prefix: bool


class Op(Row):
    """``a AND b AND …``, ``a OR b OR …`` or ``a NOT b NOT …`` (a without b, nor …)."""

    __slots__ = ()
    name: str
    operands: list[Term | Op]


def _refused(
    reason: str, action: str = 'quote a phrase ("…"), or search with --mode literal'
) -> InvalidInput:
    return InvalidInput(
        f"the search query is not valid full-text syntax: {reason}",
        context={"field": "query", "reason": reason},
        suggested_action=action,
    )


def _phrase(text: str, i: int) -> tuple[str, int]:
    """The phrase whose opening quote is at ``i`` (unescaped) and the index after it."""
    out, end = [], i + 1
    while True:
        close = text.find('"', end)
        if close < 0:
            raise _refused("a quoted phrase is not closed")
        out.append(text[end:close])
        if text[close + 1 : close + 2] != '"':
            return '"'.join(out), close + 1
        end = close + 2


def tokens(text: str) -> list[Term | str]:
    """The query as ``(``, ``)``, operator names and Terms."""
    out: list[Term | str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif char in "()":
            out.append(char)
            i += 1
        elif char == EXCLUDE and text[i + 1 : i + 2].strip() not in ("", EXCLUDE, ")"):
            out.append(EXCLUDE)
            i += 1
        elif char == '"':
            phrase, i = _phrase(text, i)
            prefix = text[i : i + 1] == "*"
            out.append(Term(phrase, prefix))
            i += prefix
        else:
            end = i
            while end < len(text) and not text[end].isspace() and text[end] not in '"()':
                end += 1
            chunk = text[i:end]
            i = end
            if chunk in OPERATORS:
                out.append(chunk)
            else:
                out.append(Term(chunk.rstrip("*"), chunk.endswith("*")))
    return out


class _Parser:
    def __init__(self, items: list[Term | str]) -> None:
        self.items, self.at = items, 0

    def peek(self) -> Term | str | None:
        return self.items[self.at] if self.at < len(self.items) else None

    def take(self) -> Term | str | None:
        item = self.peek()
        self.at += 1
        return item

    def expression(self, depth: int) -> Term | Op | None:
        nodes = [self.conjunction(depth)]
        while self.peek() == "OR":
            self.take()
            nodes.append(self.conjunction(depth))
        return _op("OR", nodes)

    def conjunction(self, depth: int) -> Term | Op | None:
        """Terms joined by AND; a ``-word`` among them is left out of all of them."""
        nodes, left_out = [], []
        item = self.peek()
        while True:
            if item == EXCLUDE:
                self.take()
                left_out.append(self.primary(depth))
            else:
                nodes.append(self.negation(depth))
            item = self.peek()
            if item == "AND":
                self.take()
            elif not (isinstance(item, Term) or item in ("(", EXCLUDE)):
                break
        kept = _op("AND", nodes)
        if kept is None and any(node is not None for node in left_out):
            raise _refused(
                "every word is left out (-word): nothing is left to search for",
                'put what to search for beside the -word, or quote "-word" to find it',
            )
        return _op("NOT", [kept, *left_out])

    def negation(self, depth: int) -> Term | Op | None:
        nodes = [self.primary(depth)]
        while self.peek() == "NOT":
            self.take()
            nodes.append(self.primary(depth))
        if nodes[0] is None and any(node is not None for node in nodes[1:]):
            raise _refused("NOT follows only punctuation: nothing is left to search for")
        return _op("NOT", nodes)

    def primary(self, depth: int) -> Term | Op | None:
        """A term (None for one of punctuation alone, which no word matches) or a group."""
        item = self.take()
        if isinstance(item, Term):
            if not item.text:
                raise _refused("a term has no text")
            return item if any(char.isalnum() for char in item.text) else None
        if item == "(":
            if depth >= MAX_DEPTH:
                raise _refused(f"parentheses nest deeper than {MAX_DEPTH}")
            node = self.expression(depth + 1)
            if self.take() != ")":
                raise _unbalanced()
            return node
        if item == ")":
            raise _unbalanced()
        where = "at the end" if item is None else f"before {item}"
        raise _refused(f"a term is missing {where}")


def _op(name: str, nodes: list[Term | Op | None]) -> Term | Op | None:
    """The operator over the nodes that hold a word (None when none does)."""
    kept = [node for node in nodes if node is not None]
    if name == "NOT" and nodes[0] is None:
        return None
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else Op(name, tuple(kept))


def _unbalanced() -> InvalidInput:
    return InvalidInput(
        "the search query's parentheses do not balance",
        context={"field": "query"},
        suggested_action="close every ( with a ), or quote the text",
    )


def parse(text: str) -> Term | Op:
    """The query's tree: a Term or an Op of trees."""
    items = tokens(text)
    if items.count("(") != items.count(")"):
        raise _unbalanced()
    parser = _Parser(items)
    tree = parser.expression(0)
    if parser.peek() is not None:
        raise _unbalanced() if parser.peek() == ")" else _refused(f"{parser.peek()} is misplaced")
    if tree is None:
        raise _refused(
            "the query holds no word, only punctuation",
            "search for a word, or search the text as written with --mode literal",
        )
    return tree


def terms(tree: Term | Op) -> list[Term]:
    """The terms of a tree, left to right."""
    if isinstance(tree, Term):
        return [tree]
    return [term for node in tree.operands for term in terms(node)]


def fts5(tree: Term | Op) -> str:
    """The tree in SQLite FTS5's query syntax, every term a quoted string."""
    if isinstance(tree, Term):
        return '"' + tree.text.replace('"', '""') + '"' + ("*" if tree.prefix else "")
    return "(" + f" {tree.name} ".join(map(fts5, tree.operands)) + ")"
