"""mcp: serve vybe's tools to an agent over stdio (the `mcp` SDK is an optional extra)."""

from __future__ import annotations

from typing import Any

from vybe.cli.registry import Registry
from vybe.errors import VybeError

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse


def mcp(inv: Any, args: argparse.Namespace) -> None:
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        raise VybeError(
            "the mcp SDK is not installed",
            code="MISSING_DEPENDENCY",
            suggested_action="pip install 'vybe[mcp]'",
        )
    from vybe.integrations import mcp_server

    mcp_server.serve(inv.settings)
    # stdout carried JSON-RPC for the whole session: no envelope may follow it.
    raise SystemExit(0)


def register(registry: Registry) -> None:
    registry.command("mcp", mcp, "Serve vybe's tools over MCP on stdio (for Claude Code, Codex).")
