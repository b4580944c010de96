"""mcp: serve vybe's tools to an agent over stdio (the `mcp` SDK is an optional extra)."""

from __future__ import annotations

from vybe.errors import require_extra
from vybe.operations.model import CLI_ONLY, Operation

GROUPS: dict[str, str] = {}


def mcp(inv, v: dict) -> dict:
    require_extra("mcp", "mcp", "vybe mcp")
    from vybe.integrations.mcp import server as mcp_server

    mcp_server.serve(inv.settings, _tools)
    # stdout carried JSON-RPC for the whole session: no envelope may follow it.
    raise SystemExit(0)


def _tools(settings: object) -> object:
    """The SDK's server with vybe's tools: the SDK is imported only once ``vybe mcp`` has
    answered ``initialize`` (vybe.integrations.mcp.server)."""
    from vybe.integrations.mcp.tools import build

    return build(settings)


OPERATIONS = (
    Operation(
        "mcp",
        "Serve vybe's tools, prompts and resources over MCP on stdio (Claude Code, Codex).",
        mcp,
        surfaces=CLI_ONLY,
        examples=("vybe mcp --agent claude", "vybe mcp --agent claude"),
    ),
)
ALIASES = ()
