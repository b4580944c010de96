"""mcp: serve vybe's tools to an agent over stdio (the `mcp` SDK is an optional extra)."""

from __future__ import annotations

from vybe.errors import require_extra
from vybe.operations.model import CLI_ONLY, Operation

GROUPS: dict[str, str] = {}


def mcp(inv, v: dict) -> dict:
    require_extra("mcp", "mcp", "vybe mcp")
    from vybe.integrations import mcp_server

    mcp_server.serve(inv.settings)
    # stdout carried JSON-RPC for the whole session: no envelope may follow it.
    raise SystemExit(0)


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
