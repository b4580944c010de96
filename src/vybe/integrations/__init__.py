"""vybe inside other agents: Claude Code's, Codex's and Gemini CLI's hooks (hooks/), the
import of their transcripts (importers/), their wiring into vybe (setup/), and the MCP server
(mcp/)."""
