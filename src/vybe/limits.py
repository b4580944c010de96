"""Input limits checked at the action boundary (the seed's figures, in characters)."""

from __future__ import annotations

import math

from vybe import jsonio
from vybe.errors import InvalidInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KIND_MAX = 128
AGENT_MAX = 128
MESSAGE_MAX = 4096
METADATA_MAX = 16384
TITLE_MAX = 512
DESCRIPTION_MAX = 16384
PATH_MAX = 4096
JSON_DOCUMENT_MAX = 1_048_576
JSON_DEPTH_MAX = 64
PRIORITY_MAX = 1_000_000
# SQLite's integer: what the store (and json_extract) can hold exactly.
INTEGER_MIN, INTEGER_MAX = -(2**63), 2**63 - 1


def text(name: str, value: str, limit: int, *, required: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string", context={"field": name})
    if not encodable(value):
        raise InvalidInput(f"{name} is not valid Unicode text", context={"field": name})
    if required and not value.strip():
        raise InvalidInput(f"{name} must not be empty", context={"field": name})
    if len(value) > limit:
        raise InvalidInput(
            f"{name} is {len(value)} characters; the limit is {limit}",
            context={"field": name, "length": len(value), "limit": limit},
            suggested_action=f"shorten {name}, or store the full text as an artifact",
        )
    if "\x00" in value:
        raise InvalidInput(f"{name} contains a NUL character", context={"field": name})
    return value


def agent_name(value: str, field: str = "agent") -> str:
    """An agent's name, kept exactly as given (``A1`` and ``a1`` are two agents): 1 to
    AGENT_MAX printable characters, no space at either end. No control character or line
    break: a name is printed into other agents' briefs, where one could forge a line (a
    heading, a quote of the person's)."""
    if (
        not isinstance(value, str)
        or not value.strip()
        or value != value.strip()
        or len(value) > AGENT_MAX
        or not encodable(value)
        or not value.isprintable()
    ):
        raise InvalidInput(
            f"the {field} name must be 1 to {AGENT_MAX} printable characters of UTF-8 text"
            " (no control characters or line breaks, no space at either end)",
            context={
                "field": field,
                "length": len(value) if isinstance(value, str) else None,
                "limit": AGENT_MAX,
            },
        )
    return value


def integer(name: str, value: object, low: int, high: int) -> int:
    """An integer argument that arrived already typed (the MCP server, vybe chat's tools)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(
            f"{name} must be an integer within {low}..{high}",
            context={"field": name, "low": low, "high": high},
        )
    return value


def encodable(value: str) -> bool:
    """Whether the text can be stored: lone surrogates (from bad bytes or JSON escapes) cannot."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def metadata(value: str | None) -> Any:
    """Parse a metadata JSON text; it must be valid and within the limit."""
    if value is None:
        return None
    text("metadata", value, METADATA_MAX)
    parsed = json_document("metadata", value)
    if not isinstance(parsed, dict):
        raise InvalidInput("metadata must be a JSON object", context={"field": "metadata"})
    return parsed


def json_document(name: str, value: str, limit: int = JSON_DOCUMENT_MAX) -> Any:
    if len(value) > limit:
        raise InvalidInput(
            f"{name} is {len(value)} characters; the limit is {limit}",
            context={"field": name, "length": len(value), "limit": limit},
        )
    try:
        parsed = jsonio.loads(value, parse_constant=_no_constant)
    except ValueError as exc:  # json.JSONDecodeError, or int()'s 4,300-digit limit
        line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
        where = f" at line {line} column {column}" if line is not None else ""
        raise InvalidInput(
            f"{name} is not valid JSON: {getattr(exc, 'msg', exc)}{where}",
            context={"field": name},
        ) from None
    except RecursionError:
        raise InvalidInput(f"{name} nests too deeply to read", context={"field": name}) from None
    return json_value(name, parsed)


def json_value(name: str, value: Any) -> Any:
    """A parsed JSON value the store can keep and give back as strict JSON: finite numbers,
    integers within SQLite's 64 bits, text without lone surrogates, at most 64 levels deep."""
    _check_json(name, value, 0)
    return value


def _check_json(name: str, value: Any, depth: int) -> None:
    if depth > JSON_DEPTH_MAX:
        raise InvalidInput(
            f"{name} nests deeper than {JSON_DEPTH_MAX} levels", context={"field": name}
        )
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        if not INTEGER_MIN <= value <= INTEGER_MAX:
            raise InvalidInput(
                f"{name} holds an integer outside 64 bits ({str(value)[:20]}...)",
                context={"field": name},
                suggested_action="store a number this large as a string",
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(
                f"{name} holds a number JSON cannot carry ({value})", context={"field": name}
            )
    elif isinstance(value, str):
        if not encodable(value):
            raise InvalidInput(
                f"{name} holds text that is not valid Unicode", context={"field": name}
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_json(name, key, depth + 1)
            _check_json(name, item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_json(name, item, depth + 1)
    else:
        raise InvalidInput(f"{name} holds a value that is not JSON", context={"field": name})


def _no_constant(name: str) -> Any:
    from json import JSONDecodeError  # only a refused document needs json

    raise JSONDecodeError(f"{name} is not JSON (use a string or null)", name, 0)


def metadata_value(value: Any, field: str = "metadata") -> Any:
    """Check metadata that arrived already parsed (``field`` of a push document)."""
    json_value(field, value)
    if value is not None and (length := len(jsonio.dumps(value))) > METADATA_MAX:
        raise InvalidInput(
            f"{field} is {length} characters as JSON; the limit is {METADATA_MAX}",
            context={"field": field, "length": length, "limit": METADATA_MAX},
            suggested_action=f"shorten {field}, or store the full text as an artifact",
        )
    return value
