"""Codex CLI hook handlers: Claude's handlers where the events match, plus Codex's own shapes.

Codex has no PostToolUseFailure: a failed Bash call arrives as PostToolUse whose
``tool_response`` carries a non-zero exit code. Its Stop hook must answer with JSON.
"""

from __future__ import annotations

import re
from typing import Any

from vybe.context.tokens import estimate
from vybe.integrations import claude_code
from vybe.integrations.hooks import Hook
from vybe.store import record as record_rows
from vybe.store.record import MessageRow

EXIT_LINE = re.compile(r"(?:exit code|exit status|exited with code)\s*:?\s*(-?\d+)", re.I)


def exit_code(response: Any) -> int | None:
    """The exit code a Bash tool response reports, if it reports one."""
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "status"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        response = response.get("output") or response.get("stderr") or ""
    if isinstance(response, str):
        found = EXIT_LINE.search(response[:2000])
        return int(found.group(1)) if found else None
    return None


def post_tool_use(hook: Hook) -> str | None:
    """Only failures are kept: a Bash call that exited non-zero."""
    if exit_code(hook.payload.get("tool_response")) in (None, 0):
        return None
    return claude_code.tool_failure(hook)


def stop(hook: Hook) -> str | None:
    """Keep the turn's final reply in the record, after the prompt the hook recorded."""
    text = hook.text("last_assistant_message")
    if text.strip():
        row = MessageRow(
            hook.record_session, 0, "assistant", text, source="codex_stop", tokens=estimate(text)
        )
        record_rows.append_message(hook.store, row)
    return None


HANDLERS = {
    "SessionStart": claude_code.session_start,
    "UserPromptSubmit": claude_code.user_prompt,
    "PostToolUse": post_tool_use,
    "Stop": stop,
    "SessionEnd": claude_code.session_end,
}
