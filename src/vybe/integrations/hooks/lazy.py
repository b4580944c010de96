"""Claude Code's and Codex's entries for the events whose handler they share with no change
(a prompt, a session's end): each imports that handler when its own event arrives, so a
hook process, which handles one event, loads no other event's module."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.integrations.hooks.hook import Hook


def user_prompt(hook: Hook) -> str | None:
    """UserPromptSubmit: vybe.integrations.hooks.prompt's handler."""
    from vybe.integrations.hooks.prompt import user_prompt as handle

    return handle(hook)


def session_end(hook: Hook) -> str | None:
    """SessionEnd: vybe.integrations.hooks.session_end's handler."""
    from vybe.integrations.hooks.session_end import session_end as handle

    return handle(hook)
