"""vybe: durable memory and continuity for AI agents.

The Python API, for anyone's agent loop (docs/python-api.md)::

    import vybe

    model = vybe.OpenAICompatible("qwen3", base_url="http://127.0.0.1:11434/v1")
    session = vybe.Session(model, vybe.ModelLimits(window=32_768), record="vybe.db")

Every name is imported on first use, not with the package: the hook path imports ``vybe``
and must stay as cheap as ``import sqlite3``.
"""

from __future__ import annotations

# The version, written only here: pyproject.toml reads it (dynamic), CHANGELOG.md names it.
__version__ = "0.1.0"
# The name vybe is installed under (pyproject.toml), for the hints that say how to add an extra.
DISTRIBUTION = "vybe-memory"

# Every public name -> the module it is imported from on first use; __all__ is these names.
_EXPORTS = {
    "AnthropicMessages": "vybe.llm.anthropic",
    "ContextExhausted": "vybe.errors",
    "Dispatch": "vybe.context.labels",
    "Model": "vybe.llm.base",
    "ModelError": "vybe.errors",
    "ModelLimits": "vybe.context.budget",
    "OpenAICompatible": "vybe.llm.openai_compat",
    "OpenAIResponses": "vybe.llm.responses",
    "Reply": "vybe.llm.base",
    "Request": "vybe.llm.base",
    "Session": "vybe.agent.session",
    "ToolCall": "vybe.llm.base",
    "ToolSpec": "vybe.llm.base",
    "Usage": "vybe.llm.base",
    "VybeError": "vybe.errors",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> object:
    """``vybe.Session`` and the other exports, each imported when first asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vybe' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
