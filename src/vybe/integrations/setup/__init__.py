"""vybe's hooks, status line and MCP server written into the agents' settings, and taken out."""
