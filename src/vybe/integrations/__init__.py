"""vybe inside other agents: Claude Code and Codex hooks, their transcript importers, their
setup, and the MCP server."""
