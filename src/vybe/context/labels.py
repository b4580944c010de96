"""Source lines: who an input came from, written from how it was dispatched, never its text."""

from __future__ import annotations

from vybe.text import shorten
from vybe.tuples import Row

HARNESS_PREFIX = "[Harness:"
FIELD_LIMIT = 80


class Dispatch(Row):
    """Facts the scheduler knows about an input no person typed."""

    __slots__ = ()
    kind: str
    id: str
    name: str = ""
    from_session: str = ""


HARNESS_KINDS = ("watch", "task", "agent_run", "callback")


def parse_dispatch(label: str) -> Dispatch:
    """``Watch w1 "nightly"`` -> the dispatch facts; ``agent_run R S`` names the session."""
    import shlex

    from vybe.errors import InvalidInput

    try:
        words = shlex.split(label)
    except ValueError as exc:
        raise InvalidInput(f"--harness {label!r}: {exc}") from None
    kind = words[0].lower() if words and words[0].lower() in HARNESS_KINDS else None
    if kind is None or len(words) < 2:
        raise InvalidInput(
            f"--harness {label!r} is not a dispatch label",
            suggested_action="""use 'Watch ID "NAME"', 'Task ID "NAME"', 'agent_run RUN SESSION'"""
            " or 'callback RUN SESSION'",
        )
    if kind in ("agent_run", "callback"):
        return Dispatch(kind, words[1], from_session=words[2] if len(words) > 2 else "")
    return Dispatch(kind, words[1], name=" ".join(words[2:]))


def _clean(value: str) -> str:
    """One line, no brackets that could close the label, at most FIELD_LIMIT characters."""
    one_line = " ".join(value.split())
    safe = one_line.translate(str.maketrans("[]<>", "()()")).replace('"', "'")
    return shorten(safe, FIELD_LIMIT)


def source_label(dispatch: Dispatch) -> str:
    """``[Harness: Watch <id> "<name>"]`` and its siblings, from the dispatch facts only."""
    kind, ident, name = _clean(dispatch.kind), _clean(dispatch.id), _clean(dispatch.name)
    origin = _clean(dispatch.from_session)
    if kind == "agent_run":
        body = f"agent run {ident} from #{origin}"
    elif kind == "callback":
        body = f"callback of run {ident} from #{origin}"
    else:
        title = {"watch": "Watch", "task": "Task"}.get(kind, kind)
        body = f'{title} {ident} "{name}"' if name else f"{title} {ident}"
    return f"{HARNESS_PREFIX} {body}]"


def harness_text(dispatch: Dispatch, body: str) -> str:
    """An input no person typed: its source line first, then its text as sent."""
    return f"{source_label(dispatch)}\n{body}"


_SIGN = "[harness:"  # what a source line starts with, once normalized


def looks_like_label(text: str) -> bool:
    """Whether a reader (or a model) could take the start of ``text`` for a source line.

    Decided on the normalized text: Unicode NFKC (a fullwidth bracket is a bracket), format
    characters (zero-width spaces, BOM, word joiner, bidi overrides, soft hyphens) and
    spaces removed, case folded, as in ``[ HARNESS :``. Only the first visible characters
    are read, however many invisible ones come before or between them."""
    seen, known = "", {}  # known: each non-ASCII character normalized once per call
    for char in text:
        if char.isspace():
            continue
        if not char.isascii():
            if char not in known:
                known[char] = _visible(char)
            char = known[char]
        seen += char.casefold()
        if len(seen) >= len(_SIGN):
            break
    return seen.startswith(_SIGN)


def _visible(char: str) -> str:
    """A non-ASCII character as NFKC has it, without format characters or spaces."""
    import unicodedata

    normal = unicodedata.normalize("NFKC", char)
    return "".join(c for c in normal if not c.isspace() and unicodedata.category(c) != "Cf")


def user_text(author: str, text: str) -> str:
    """A person's text; one that starts like a source line gets its author's name first."""
    if looks_like_label(text):
        return f"{_clean(author) or 'user'}: {text}"
    return text
