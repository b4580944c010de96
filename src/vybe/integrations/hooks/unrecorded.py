"""A hook of a session vybe does not record (VYBE_RECORD=off, an excluded working folder)."""

from __future__ import annotations

from vybe.integrations.hooks.hook import Hook
from vybe.integrations.hooks.prompt import asks_for_status
from vybe.integrations.hooks.session_start import brief_prompt

PROMPT_EVENTS = ("UserPromptSubmit", "BeforeAgent")  # a typed prompt: Claude's, Codex's; Gemini's
NOT_RECORDING = "vybe is not recording this session ({why}): the brief above is read-only."


def unrecorded(hook: Hook, why: str) -> str | None:
    """A hook of a session vybe does not record: nothing is written; the session's start
    gets the brief (read, not resumed: no cursor moves) and says once that recording is
    off, a status question gets the brief, every other event nothing."""
    if hook.event == "SessionStart":
        return f"{brief_prompt(hook)}\n\n{NOT_RECORDING.format(why=why)}"
    if hook.event in PROMPT_EVENTS and asks_for_status(hook.text("prompt")):
        return brief_prompt(hook)
    return None
