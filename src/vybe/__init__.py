"""vybe: durable memory and continuity for AI agents."""

__version__ = "0.1.0"
