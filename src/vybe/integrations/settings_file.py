"""Read-modify-write of an agent's JSON settings file: under a lock, written atomically."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from vybe import locks
from vybe.errors import InvalidInput, VybeError


def read(path: Path) -> dict:
    """The settings object, empty when the file is missing; a broken file is never replaced."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise VybeError(f"cannot read {path}: {exc.strerror}", code="SETTINGS_UNREADABLE") from None
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise InvalidInput(
            f"{path} is not valid JSON ({exc}); vybe will not overwrite it",
            code="SETTINGS_UNREADABLE",
            context={"path": str(path)},
            suggested_action="fix the file by hand, then install again",
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("hooks", {}), dict):
        raise InvalidInput(
            f"{path} does not hold a settings object with a `hooks` object",
            code="SETTINGS_UNREADABLE",
            context={"path": str(path)},
        )
    return document


def render(document: dict) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync, rename over, fsync the folder: all or nothing."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def update(path: Path, change: Callable[[dict], dict], *, dry_run: bool = False) -> bool:
    """Apply ``change`` to the file's object under the lock; True when the text changed.

    A symlinked settings file (dotfiles) is updated where it points, the link kept."""
    path = Path(os.path.realpath(path))
    if not dry_run:
        path.parent.mkdir(parents=True, exist_ok=True)
    # The settings' folder itself is the lock: no lock file is left beside a project's
    # .claude/settings.json for git to show.
    with contextlib.nullcontext() if dry_run else locks.exclusive(str(path.parent)):
        before = read(path)
        after = change(json.loads(json.dumps(before)))
        changed = render(after) != render(before)
        if changed and not dry_run:
            write_atomic(path, render(after))
        return changed
