"""JSON text in and out through CPython's own accelerator (``_json``), without the json package.

The json package compiles regular expressions on import, so it imports ``re`` and ``enum``
(a quarter of a bare start); every hook and command reads or writes JSON. ``_json`` is
the C code json itself runs for these calls, so the text is the same (tested against json).
Anything unusual (indentation, invalid input, a Python without ``_json``) goes to json.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    # A JSON object as vybe passes it around: an operation's values and result, an
    # envelope, a hook's payload, a JSON column. Its values are whatever JSON holds.
    JSONObject: TypeAlias = dict[str, Any]

try:
    from _json import encode_basestring, encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # another Python: json does everything
    make_encoder = make_scanner = None  # type: ignore[misc, assignment]

_WHITESPACE = " \t\n\r"  # what json.decoder skips around a document


class _Options:
    """The attributes json's C scanner reads from its decoder: json.loads' defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_int = int

    def __init__(
        self,
        parse_constant: Callable[[str], Any] | None,
        parse_float: Callable[[str], Any] | None = None,
    ) -> None:
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.parse_float = parse_float or float


_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
# typeshed's stub of the private scanner names its argument's type wrongly (a decoder-like
# object is what CPython reads).
_scan = make_scanner(_Options(None)) if make_scanner is not None else None  # type: ignore[arg-type]


def _not_serializable(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    default: Callable[[Any], Any] | None = None,
    allow_nan: bool = True,
    sort_keys: bool = False,
    indent: int | None = None,
) -> str:
    """json.dumps, with the same defaults and the same text."""
    if make_encoder is None or indent is not None:
        import json

        return json.dumps(
            value,
            ensure_ascii=ensure_ascii,
            separators=separators,
            default=default,
            allow_nan=allow_nan,
            sort_keys=sort_keys,
            indent=indent,
        )
    item_separator, key_separator = separators or (", ", ": ")
    strings = encode_basestring_ascii if ensure_ascii else encode_basestring
    encode = make_encoder(
        {},
        default or _not_serializable,
        strings,
        None,
        key_separator,
        item_separator,
        sort_keys,
        False,
        allow_nan,
    )
    return "".join(encode(value, 0))


def loads(
    text: str,
    *,
    parse_constant: Callable[[str], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
) -> Any:
    """json.loads of a str; invalid text raises json's own JSONDecodeError (a ValueError)."""
    if make_scanner is not None and isinstance(text, str):
        custom = parse_constant or parse_float
        options = _Options(parse_constant, parse_float)
        scan: Any = make_scanner(options) if custom else _scan  # type: ignore[arg-type]
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = scan(text, start)
        except (StopIteration, ValueError, SystemError):
            # json below says what is wrong, and where. (Python 3.11's scanner builds its
            # error from json.decoder only when that is already imported: a SystemError.)
            pass
        else:
            if not text[end:].strip(_WHITESPACE):
                return value
    import json

    return json.loads(text, parse_constant=parse_constant, parse_float=parse_float)
