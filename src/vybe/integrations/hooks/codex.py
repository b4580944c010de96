"""Codex CLI hook handlers: the shared ones (this package's, a module an event) where the
events match, plus Codex's own shapes.

Codex has no PostToolUseFailure: a failed Bash call arrives as PostToolUse, its exit code in
``tool_response`` (older releases) or only in the rollout (0.171 sends the output string).
Its Stop hook must answer with JSON.
PreCompact and Stop import the rollout (``transcript_path``) since the last import, as
Claude's do with its transcript; the prompts UserPromptSubmit recorded are not added twice.
"""

from __future__ import annotations

from vybe.integrations.hooks.commits import watching_commits
from vybe.integrations.hooks.hook import Hook, exit_code
from vybe.integrations.hooks.lazy import session_end, user_prompt
from vybe.integrations.hooks.session_start import session_start

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.integrations.importers.transcript_import import SkipHooked

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
    from vybe.integrations.hooks.tool_failure import tool_failure

    return tool_failure(hook, response, exit_code=code)


def import_rollout(hook: Hook) -> SkipHooked | None:
    """Bring the rollout's new lines into the record (snapshot only: nothing is injected)."""
    from vybe.integrations.hooks.transcript import import_since_hooks

    return import_since_hooks(hook)


def pre_compact(hook: Hook) -> str | None:
    """Import the rollout and open the compaction's receipt."""
    from vybe.integrations.hooks.pre_compact import pre_compact as open_receipt

    import_rollout(hook)
    open_receipt(hook)
    return None


def stop(hook: Hook) -> str | None:
    """Import the rollout; keep the turn's final reply from the payload when the rollout does
    not hold it yet (a later import then leaves out its copy)."""
    from vybe.integrations.hooks.stop import keep_final_reply

    keep_final_reply(hook, import_rollout(hook))
    return None


HANDLERS = {
    event: watching_commits(handler)
    for event, handler in {
        "SessionStart": session_start,
        "UserPromptSubmit": user_prompt,
        "PostToolUse": post_tool_use,  # every Bash call: a commit is seen as it is made
        "PreCompact": pre_compact,
        "Stop": stop,
        "SessionEnd": session_end,
    }.items()
}
