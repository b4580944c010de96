"""A failed tool call (Claude's PostToolUseFailure, Codex's PostToolUse with a non-zero exit
code) logged with bounded previews, for recovery context later."""

from __future__ import annotations

from vybe import jsonio
from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.hook import Hook

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


INPUT_PREVIEW_CHARS = 2000

ERROR_PREVIEW_CHARS = 4000


def _preview(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else jsonio.dumps(value, ensure_ascii=False, default=str)
    return hook_actions.clip(text, limit)


def tool_failure(hook: Hook, raw: Any, exit_code: int | None = None) -> str | None:
    """Log a failed tool call with bounded previews, for recovery context later (not one of
    a tool privacy.exclude_tools names)."""
    from vybe.config import excluded_tools

    if (hook.text("tool_name") or "tool") in excluded_tools():
        return None
    error = _preview(raw, ERROR_PREVIEW_CHARS)
    if exit_code is not None and not error.startswith("Exit code"):
        error = f"Exit code {exit_code}\n{error}"
    tool = hook.text("tool_name") or "tool"
    hook_actions.log_event(
        hook.store,
        hook.agent,
        hook_actions.request_id(hook.target, hook.session_id, hook.event, hook.payload),
        kind="tool_failure",
        message=f"{tool}: {error.splitlines()[0] if error else 'failed'}",
        project_id=hook.project,
        metadata={
            "session_id": hook.session_id,
            "tool_name": tool,
            "tool_use_id": hook.text("tool_use_id"),
            "input_preview": _preview(hook.payload.get("tool_input"), INPUT_PREVIEW_CHARS),
            "error_preview": error,
        },
    )
    return None
