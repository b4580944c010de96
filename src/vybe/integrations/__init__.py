"""vybe inside other agents: Claude Code's and Codex's hooks (hooks/), the import of their
transcripts (importers/), the wiring of both into vybe (setup/), and the MCP server (mcp/)."""
