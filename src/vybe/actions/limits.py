"""Input limits checked at the action boundary (the seed's figures, in characters)."""

from __future__ import annotations

from vybe import jsonio
from vybe.errors import InvalidInput

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
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
        return jsonio.loads(value, parse_constant=_no_constant)
    except ValueError as exc:  # json.JSONDecodeError, from jsonio as from json
        raise InvalidInput(
            f"{name} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            context={"field": name},
        ) from None
    except RecursionError:
        raise InvalidInput(f"{name} nests too deeply to read", context={"field": name}) from None


def _no_constant(name: str) -> Any:
    from json import JSONDecodeError  # only a refused document needs json

    raise JSONDecodeError(f"{name} is not JSON (use a string or null)", name, 0)


def metadata_value(value: Any) -> Any:
    """Check metadata that arrived already parsed (inside a push document)."""
    if value is not None and len(jsonio.dumps(value)) > METADATA_MAX:
        raise InvalidInput(f"metadata exceeds {METADATA_MAX} characters as JSON")
    return value
