"""Claude Code's transcripts and Codex's rollouts read into the record, from the last import on."""
