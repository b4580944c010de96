"""The agents' hook handlers, a module an event, what they share, and Claude Code's status line."""
