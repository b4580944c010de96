"""The checkpoint protocol's fixed strings, defined once: the engine writes them, and the
scripted consolidators and tests recognise them by these names."""

from __future__ import annotations

from vybe.context.labels import HARNESS_PREFIX

REQUEST_OPEN = "<context-checkpoint-request>"
REQUEST_CLOSE = "</context-checkpoint-request>"
REPAIR_LEAD = "This consolidation cannot be used yet"
RECOLLECTION_OPEN = "<context-checkpoint>"
RECOLLECTION_CLOSE = "</context-checkpoint>"
USER_WORDS = "# 5. The user's words"

__all__ = [
    "HARNESS_PREFIX",
    "RECOLLECTION_CLOSE",
    "RECOLLECTION_OPEN",
    "REPAIR_LEAD",
    "REQUEST_CLOSE",
    "REQUEST_OPEN",
    "USER_WORDS",
    "is_repair",
    "is_request",
]


def is_request(text: str) -> bool:
    """A checkpoint request (not its repair): the first user message of a checkpoint turn."""
    return text.startswith(REQUEST_OPEN) and not is_repair(text)


def is_repair(text: str) -> bool:
    return text.startswith(f"{REQUEST_OPEN}\n{REPAIR_LEAD}")
