"""SQLite persistence: every SQL statement of vybe lives in this package."""

from vybe.store.db import Store, open_readonly

__all__ = ["Store", "open_readonly"]
