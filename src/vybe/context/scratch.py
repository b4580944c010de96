"""The checkpoint turn's two scratch files, mind.md and memo.md, held in memory.

The model reaches them only through the turn's ``read`` and ``edit`` calls, by name, so they
need no folder: nothing is written to disk, and no session id can point a write anywhere.
"""

from __future__ import annotations

from pathlib import PurePosixPath

FILES = ("mind.md", "memo.md")


class Scratch:
    """The two files of one checkpoint turn."""

    def __init__(self) -> None:
        self._files = dict.fromkeys(FILES, "")

    @staticmethod
    def resolve(path: object) -> str | None:
        """The file a tool argument names (``mind.md``, ``./memo.md``), or None for any other."""
        given = PurePosixPath(str(path))
        return given.name if given.name in FILES and len(given.parts) == 1 else None

    def read(self, name: str) -> str:
        return self._files[name]

    def write(self, name: str, text: str) -> None:
        self._files[name] = text
