"""Claude Code's hook handlers: the shared ones (this package's, a module an event) where its
events are theirs, and its own quirks: ``VYBE_AGENT`` written to ``CLAUDE_ENV_FILE`` at
session start, PostToolUseFailure's ``error``, a transcript flushed after its Stop hook
fires, TaskCompleted, and an approved plan (ExitPlanMode) becoming tasks.
"""

from __future__ import annotations

import os

from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks import session_start as start
from vybe.integrations.hooks.commits import watching_commits as watching
from vybe.integrations.hooks.hook import Hook
from vybe.integrations.hooks.lazy import session_end, user_prompt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.integrations.importers.transcript_import import SkipHooked

# How long Stop waits for Claude Code to flush the turn's end into its transcript, which it
# does after the hook fires, before keeping the reply from the payload.
FLUSH_WAIT = 0.3
VYBE_TASK_ID = r"\btask_\d{6,}_[0-9a-f]{4,}\b"


def persist_agent(hook: Hook) -> bool:
    """Claude Code runs the ``export`` lines a SessionStart hook appends to ``CLAUDE_ENV_FILE``
    before each later Bash call: there ``VYBE_AGENT`` names this agent, so a bare ``vybe``
    the agent types acts as it too (the brief's own lines say ``--agent``). Once per file."""
    from vybe.config import shell_word

    path = os.environ.get("CLAUDE_ENV_FILE")
    if not path:
        return False
    line = f"export VYBE_AGENT={shell_word(hook.agent)}\n"
    try:
        with open(path, encoding="utf-8") as handle:
            if line in handle.read():
                return False
    except FileNotFoundError:
        pass
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
    return True


def session_start(hook: Hook) -> str | None:
    """The shared brief (``session_start.session_start``), once ``VYBE_AGENT`` is in the
    session's environment file."""
    persist_agent(hook)
    return start.session_start(hook)


def claude_tool_failure(hook: Hook) -> str | None:
    """Claude's PostToolUseFailure: the failure is its ``error``."""
    from vybe.integrations.hooks.tool_failure import tool_failure

    return tool_failure(hook, hook.payload.get("error"))


def import_transcript(hook: Hook) -> str | None:
    """Bring the transcript's new lines into the record and open the compaction's receipt
    (nothing is injected)."""
    from vybe.integrations.hooks.pre_compact import pre_compact
    from vybe.integrations.hooks.transcript import import_since_hooks

    import_since_hooks(hook)
    pre_compact(hook)
    return None


def stop(hook: Hook) -> str | None:
    """Import the transcript, and keep the final reply from the payload if it is not in yet."""
    from vybe.integrations.hooks.stop import keep_final_reply
    from vybe.integrations.hooks.transcript import import_since_hooks

    keep_final_reply(hook, after_flush(hook, import_since_hooks(hook)))
    return None


def after_flush(hook: Hook, imported: SkipHooked | None) -> SkipHooked | None:
    """The import again each time the file grows past what was imported, for up to
    FLUSH_WAIT, until it holds the turn's final reply: what Claude Code had not flushed yet
    (the result of the turn's last tool call, often) then lands before the reply, in the
    order it happened. The file is measured against where the import ended, not after it:
    a flush during the import is not mistaken for no flush."""
    import time

    from vybe.integrations.hooks.transcript import import_since_hooks

    text = hook.text("last_assistant_message")
    if imported is None or not text.strip() or imported.last_reply == text:
        return imported
    path, tried = hook.text("transcript_path"), imported.result.offset
    deadline = time.monotonic() + FLUSH_WAIT
    try:
        while not imported.result.more and time.monotonic() < deadline:
            size = os.path.getsize(path)
            if size <= tried:  # nothing new, or only the unfinished line last tried
                time.sleep(0.02)
                continue
            again = import_since_hooks(hook)
            if again is None:
                break
            again.last_reply = again.last_reply or imported.last_reply
            imported, tried = again, size
            if imported.last_reply == text:
                break
    except OSError:  # the file went away meanwhile: the reply is kept from the payload
        pass
    return imported


def task_completed(hook: Hook) -> str | None:
    """Log the completion of a Claude task, and close a vybe task only when it is linked: its
    id named, or this session's Claude task id in its metadata (``claude_task_id`` and
    ``claude_session_id``)."""
    import re

    subject = hook.text("task_subject")
    found = re.search(VYBE_TASK_ID, f"{subject}\n{hook.text('task_description')}")
    named, agent_task = found.group(0) if found else None, hook.text("task_id")
    if not named and not agent_task:
        return None
    hook_actions.complete_linked_task(
        hook.store,
        hook.agent,
        hook_actions.request_id(hook.target, hook.session_id, hook.event, agent_task or named),
        vybe_task_id=named,
        agent_task_id=agent_task,
        subject=subject,
        session_id=hook.session_id,
        project_id=hook.project,
    )
    return None


PLAN_FILE_MAX = 1024 * 1024


def plan_file(response: object) -> str:
    """The plan Claude Code 2.1.332 keeps in a file (``tool_response.filePath``, ``plan``
    null): its text when it names a Markdown file of at most PLAN_FILE_MAX bytes."""
    path = response.get("filePath") if isinstance(response, dict) else None
    if not isinstance(path, str) or not path.endswith(".md") or not os.path.isfile(path):
        return ""
    try:
        with open(path, "rb") as handle:
            data = handle.read(PLAN_FILE_MAX + 1)
    except OSError:
        return ""
    return "" if len(data) > PLAN_FILE_MAX else data.decode("utf-8", "replace")


def plan_approved(hook: Hook) -> str | None:
    """Claude's PostToolUse after ExitPlanMode was approved: the plan's steps (as approved,
    edits included) become tasks of the project, in order, once per plan."""
    from vybe.actions import tasks as task_actions
    from vybe.digest import sha256_hex
    from vybe.integrations.hooks import plans

    response, asked = hook.payload.get("tool_response"), hook.payload.get("tool_input")
    plan = next((v["plan"] for v in (response, asked) if isinstance(v, dict) and v.get("plan")), "")
    plan = plan or plan_file(response)
    if hook.text("tool_name") != "ExitPlanMode" or not isinstance(plan, str) or not plan.strip():
        return None
    digest = sha256_hex(plan.encode("utf-8", "surrogatepass"))
    project = hook.project
    once = sha256_hex(f"{project}\0{plan}".encode("utf-8", "surrogatepass"))  # per project
    metadata = {
        "plan": plans.title(plan),
        "plan_sha256": digest,
        "claude_session_id": hook.session_id,
    }
    task_actions.create_plan(
        hook.store,
        hook.agent,
        f"plan_{once}",
        project_dir=project,
        steps=list(plans.steps(plan)),
        metadata=metadata,
    )
    return None


HANDLERS = {
    "SessionStart": watching(session_start),
    "UserPromptSubmit": watching(user_prompt),
    "PostToolUseFailure": watching(claude_tool_failure),
    "PostToolUse": watching(plan_approved),
    "PreCompact": watching(import_transcript),
    "Stop": watching(stop),
    "TaskCompleted": task_completed,
    "SessionEnd": watching(session_end),
}
