"""`vybe mcp`: vybe's operations as MCP tools over stdio, built from their declarations."""
