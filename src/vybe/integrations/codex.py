"""Codex CLI hook handlers: Claude's handlers where the events match, plus Codex's own shapes.

Codex has no PostToolUseFailure: a failed Bash call arrives as PostToolUse, its exit code in
``tool_response`` (older releases) or only in the rollout (0.171 sends the output string).
Its Stop hook must answer with JSON.
PreCompact and Stop import the rollout (``transcript_path``) since the last import, as
Claude's do with its transcript; the prompts UserPromptSubmit recorded are not added twice.
"""

from __future__ import annotations

from vybe.integrations import claude_code
from vybe.integrations.hooks import Hook

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any

# A pattern, compiled (and cached by re) on first use: other events need no re module.
EXIT_LINE = r"(?i)(?:exit code|exit status|exited with code)\s*:?\s*(-?\d+)"


def exit_code(response: Any) -> int | None:
    """The exit code a Bash tool response reports, if it reports one."""
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "status"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        response = response.get("output") or response.get("stderr") or ""
    head = response[:2000] if isinstance(response, str) else ""
    if "exit" not in head.lower():  # what every match holds: most outputs need no re
        return None
    import re

    found = re.search(EXIT_LINE, head)
    return int(found.group(1)) if found else None


ROLLOUT_TAIL_BYTES = 256 * 1024  # where a just-finished command's item sits in the rollout


def rollout_exit_code(path: str, call_id: str) -> int | None:
    """The exit code the rollout gives the command ``call_id`` (its ``item_completed``
    CommandExecution, written before PostToolUse fires), read from the file's tail only."""
    import json

    if not path or not call_id:
        return None
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, handle.seek(0, 2) - ROLLOUT_TAIL_BYTES))
            tail = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    needle = f'"id":"{call_id}"'
    for line in reversed(tail):
        if needle not in line or "CommandExecution" not in line:
            continue
        try:
            item = json.loads(line)["payload"]["item"]
        except (ValueError, KeyError, TypeError):
            continue
        code = item.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None


def post_tool_use(hook: Hook) -> str | None:
    """Only failures are kept: a Bash call that exited non-zero. Codex 0.171 sends the output
    as a plain string with no exit code; the rollout's record of the call has it."""
    response = hook.payload.get("tool_response")
    code = exit_code(response)
    if code is None and isinstance(response, str):
        code = rollout_exit_code(hook.text("transcript_path"), hook.text("tool_use_id"))
    if code in (None, 0):
        return None
    return claude_code.tool_failure(hook, response, exit_code=code)


def rollout_importer() -> tuple[str, Any]:
    from vybe.integrations import codex_rollout

    return codex_rollout.STAMP, codex_rollout.import_rollout


def import_rollout(hook: Hook) -> claude_code.SkipHooked | None:
    """Bring the rollout's new lines into the record (snapshot only: nothing is injected)."""
    return claude_code.import_since_hooks(hook, rollout_importer)


def pre_compact(hook: Hook) -> str | None:
    """Import the rollout and open the compaction's receipt."""
    import_rollout(hook)
    claude_code.pre_compact(hook)
    return None


def stop(hook: Hook) -> str | None:
    """Import the rollout; keep the turn's final reply from the payload when the rollout does
    not hold it yet (a later import then leaves out its copy)."""
    claude_code.keep_final_reply(hook, import_rollout(hook))
    return None


HANDLERS = {
    event: claude_code.watching_commits(handler)
    for event, handler in {
        "SessionStart": claude_code.session_start,
        "UserPromptSubmit": claude_code.user_prompt,
        "PostToolUse": post_tool_use,  # every Bash call: a commit is seen as it is made
        "PreCompact": pre_compact,
        "Stop": stop,
        "SessionEnd": claude_code.session_end,
    }.items()
}
