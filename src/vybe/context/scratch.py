"""The session's scratch folder: mind.md and memo.md of a checkpoint turn, nothing else."""

from __future__ import annotations

import os
import re
from pathlib import Path

FILES = ("mind.md", "memo.md")


class Scratch:
    """The two files of one session's checkpoint turn, written atomically."""

    def __init__(self, root: Path, session_id: str) -> None:
        self.folder = Path(root) / re.sub(r"[^\w.-]", "_", session_id)
        self.folder.mkdir(parents=True, exist_ok=True)

    def resolve(self, path: str) -> str | None:
        """The file a tool argument names, if it is one of the two; anything else is None."""
        given = Path(str(path))
        name = given.name
        if name not in FILES:
            return None
        if len(given.parts) == 1 or given == self.folder / name:
            return name
        return None

    def read(self, name: str) -> str:
        return (self.folder / name).read_text(encoding="utf-8")

    def write(self, name: str, text: str) -> None:
        target = self.folder / name
        temporary = target.with_suffix(".tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
