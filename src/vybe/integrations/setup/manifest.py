"""The hook registry: which agent events vybe hooks, with which matcher and timeout.

It lives in the config dir as ``hooks.json``: `vybe init`, `vybe setup` and `vybe hook
export` write the defaults there when it is absent, the person edits it, and `vybe hook
install` / `vybe setup` follow it. A registry that cannot be read is refused (never the
defaults in its place), and `vybe doctor` names it, and an agent's settings that differ from
it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from vybe import config
from vybe.errors import InvalidInput

MANIFEST_NAME = config.HOOK_MANIFEST
MAX_TIMEOUT_SECONDS = 10
TARGETS = ("claude", "codex", "gemini")


@dataclass(frozen=True)
class HookSpec:
    """One event an agent should send to ``vybe hook run <target>``."""

    event: str
    timeout: int
    matcher: str | None = None
    is_async: bool = False


# Timeouts are in seconds, as Claude Code and Codex read them (the original wrote milliseconds
# there); Gemini CLI's settings get them in milliseconds (vybe.integrations.setup.install).
DEFAULT: dict[str, tuple[HookSpec, ...]] = {
    "claude": (
        HookSpec("SessionStart", 10, "startup|resume|clear|compact"),
        HookSpec("UserPromptSubmit", 5),
        # Synchronous: `claude -p` kills async hooks at exit and then skips SessionEnd.
        HookSpec("PostToolUseFailure", 5, "*"),
        HookSpec("PostToolUse", 5, "ExitPlanMode"),  # an approved plan: its steps as tasks
        HookSpec("PreCompact", 10, "auto|manual"),
        HookSpec("Stop", 10),
        HookSpec("TaskCompleted", 5),
        HookSpec("SessionEnd", 2),
    ),
    "codex": (
        HookSpec("SessionStart", 10, "startup|resume|clear|compact"),
        HookSpec("UserPromptSubmit", 5),
        HookSpec("PostToolUse", 5, "Bash"),
        HookSpec("PreCompact", 10, "auto|manual"),
        HookSpec("Stop", 10),
    ),
    # Gemini CLI matches a lifecycle event's matcher as one exact string; its PreCompress
    # fires with ``auto`` before every model call (vybe.integrations.hooks.gemini): ``/compress``
    # only.
    "gemini": (
        HookSpec("SessionStart", 5),
        HookSpec("BeforeAgent", 10),
        HookSpec("AfterTool", 5, "*"),
        HookSpec("AfterAgent", 5),
        HookSpec("PreCompress", 5, "manual"),
        HookSpec("SessionEnd", 2),
    ),
}


def path() -> Path:
    return Path(config.config_dir(), MANIFEST_NAME)


def to_json(specs: dict[str, tuple[HookSpec, ...]]) -> dict:
    return {
        target: [
            {k: v for k, v in asdict(spec).items() if v is not None and v is not False}
            for spec in entries
        ]
        for target, entries in specs.items()
    }


def _spec(target: str, entry: object) -> HookSpec:
    if not isinstance(entry, dict) or not isinstance(entry.get("event"), str):
        raise InvalidInput(f"{target}: every hook needs an event name", context={"entry": entry})
    timeout = entry.get("timeout", MAX_TIMEOUT_SECONDS)
    if not isinstance(timeout, int) or not 1 <= timeout <= MAX_TIMEOUT_SECONDS:
        raise InvalidInput(
            f"{target} {entry['event']}: timeout must be 1..{MAX_TIMEOUT_SECONDS} seconds",
            context={"timeout": timeout},
            suggested_action="timeouts are seconds, not milliseconds",
        )
    matcher = entry.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        raise InvalidInput(f"{target} {entry['event']}: matcher must be a string")
    return HookSpec(entry["event"], timeout, matcher, bool(entry.get("is_async", False)))


def parse(document: object) -> dict[str, tuple[HookSpec, ...]]:
    """Validate a registry document; unknown targets are refused, missing ones defaulted."""
    if not isinstance(document, dict) or set(document) - set(TARGETS):
        raise InvalidInput(
            f"the hook registry must be an object with keys among {TARGETS}",
            context={"keys": sorted(document) if isinstance(document, dict) else None},
        )
    specs = dict(DEFAULT)
    for target, entries in document.items():
        if not isinstance(entries, list):
            raise InvalidInput(f"{target}: expected a list of hooks")
        specs[target] = tuple(_spec(target, e) for e in entries)
    return specs


def ensure() -> bool:
    """Write the default registry when there is none; whether it was written."""
    where = path()
    if where.exists():
        return False
    config.make_private_dir(str(where.parent))
    document = json.dumps(to_json(DEFAULT), indent=2) + "\n"
    return config.write_whole(str(where), document, exclusive=True)  # not over another's


def load() -> tuple[dict[str, tuple[HookSpec, ...]], Path | None]:
    """The registry in the config dir when there is one, else the defaults."""
    where = path()
    if not where.is_file():
        return dict(DEFAULT), None
    try:
        document = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(
            f"cannot read the hook registry {where}: {exc}",
            context={"path": str(where)},
            suggested_action="fix the file, or delete it to use the defaults",
        ) from None
    return parse(document), where
