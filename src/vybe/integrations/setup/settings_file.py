"""Read-modify-write of an agent's JSON settings file: under a lock, written atomically."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from vybe import config, locks
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
            config.write_whole(str(path), render(after), keep_mode=True)
        return changed
