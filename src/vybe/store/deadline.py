"""A statement's deadline: SQLite's progress handler that stops it past its time, telling a
timeout (QUERY_TIMEOUT) from a Ctrl-C. Used by ad-hoc queries and search pages."""

from __future__ import annotations

import sqlite3
import time

from vybe.errors import VybeError


class Deadline:
    """SQLite's progress handler: a non-zero answer interrupts the statement. A Ctrl-C
    raises inside the handler (Python runs signal handlers there), which sqlite3 takes as
    an interruption and swallows; so a statement interrupted before its deadline was
    stopped by Ctrl-C, and KeyboardInterrupt is raised again."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def __call__(self) -> int:
        return int(time.monotonic() > self.deadline)

    def explain(self, exc: sqlite3.Error) -> None:
        if "interrupted" not in str(exc).lower():
            return
        if time.monotonic() <= self.deadline:
            raise KeyboardInterrupt from None
        raise VybeError(
            f"the query ran past its time limit of {self.seconds:g} s and was stopped",
            code="QUERY_TIMEOUT",
            context={"seconds": self.seconds},
            suggested_action="narrow the query (a WHERE, a LIMIT, no unbounded recursion)",
        ) from None
