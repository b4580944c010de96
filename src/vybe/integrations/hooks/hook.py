"""What every agent hook handler shares: the ``Hook`` an event arrives as, the output each
event accepts, the failure log, the lock transcript imports take turns on, and a shell
tool's exit code.

A handler gets a ``Hook`` and returns context text (or nothing); ``vybe hook run``
(vybe.cli.hook_run) reads the event, runs its handler and, whatever goes wrong, answers
exit 0 and an empty stdout (``{}`` where the agent requires JSON, as Codex's Stop); the
error goes to ``hooks.log`` in the config dir.
Only the standard library is imported here and in the handlers: this runs on every prompt.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from vybe import config, jsonio
from vybe.text import shorten

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.store import Store
    from vybe.store.record import Origin

MAX_INPUT_BYTES = 16 * 1024 * 1024  # what ``parse`` accepts
CONTEXT_LIMIT = 10_000
HOOK_BUSY_TIMEOUT_MS = 2000
LOG_NAME = config.HOOKS_LOG
LOG_MAX_BYTES = 1_000_000

# Events whose JSON output may carry hookSpecificOutput.additionalContext (docs/integrations.md).
CONTEXT_EVENTS = {
    "claude": {"SessionStart", "UserPromptSubmit", "PostToolUseFailure"},
    "codex": {"SessionStart", "UserPromptSubmit", "PostToolUse"},
    # SessionStart's too, but headless Gemini CLI puts it before the typed prompt
    # (vybe.integrations.hooks.gemini): vybe gives its context with BeforeAgent only.
    "gemini": {"BeforeAgent"},
}
# Events whose output must be JSON even when there is nothing to say (Codex Stop); every
# event of the agents that read stderr when stdout is empty (Gemini CLI).
JSON_REQUIRED = {"codex": {"Stop"}}
JSON_ALWAYS = frozenset({"gemini"})
# Events that write nothing of the record (a brief's cursor, a compaction's receipt, commit
# and end events): their commits skip the fsync each (``Store.sync_each_commit``) that keeps
# what the others write, the person's words, through a power cut.
UNSYNCED_EVENTS = frozenset({"SessionStart", "SessionEnd"})
IMPORT_WAIT = 5.0  # seconds an import waits for another one: within every hook's timeout


class Hook:
    """One event as an agent sent it, and where vybe keeps its state.

    A plain class: nothing else on the prompt path would need the dataclasses module."""

    def __init__(
        self,
        target: str,
        event: str,
        payload: dict[str, Any],
        agent: str,
        settings: config.Settings,
        invocation: str | None = None,
    ) -> None:
        self.target, self.event, self.payload = target, event, payload
        self.agent, self.settings = agent, settings
        # This call of the hook, when it may run twice (the local service, then the hook
        # process itself): the writes that must happen once are keyed by it.
        self.invocation = invocation
        self._store: Any = None

    @property
    def store(self) -> Any:
        if self._store is None:
            from vybe.store import open_store

            busy = min(self.settings.busy_timeout_ms, HOOK_BUSY_TIMEOUT_MS)
            self._store = open_store(self.settings.location, busy)
            if self.event not in UNSYNCED_EVENTS:
                self._store.sync_each_commit()
        return self._store

    @property
    def session_id(self) -> str:
        return str(self.payload.get("session_id") or "unknown")

    @property
    def record_session(self) -> str:
        """The record session of this agent session: ``claude:<id>``, ``codex:<id>`` or
        ``gemini:<id>``."""
        return f"{self.target}:{self.session_id}"

    @property
    def cwd(self) -> str:
        return str(self.payload.get("cwd") or os.getcwd())

    @property
    def project(self) -> str:
        """The project of the folder the agent works in: its absolute path (a project's id)."""
        return os.path.abspath(self.cwd)

    @property
    def origin(self) -> Origin:
        """Who starts the session (this hook's agent) and in which project: what the row
        that starts it keeps."""
        from vybe.store.record import Origin

        return Origin(self.agent, self.project)

    def once(self) -> tuple[str, str] | None:
        """(agent, request id) this call's writes happen once by, when it may run twice."""
        if not self.invocation:
            return None
        from vybe.actions.hooks import request_id

        return self.agent, request_id(self.target, self.session_id, self.event, self.invocation)

    def text(self, name: str) -> str:
        value = self.payload.get(name)
        return value if isinstance(value, str) else ""

    def close(self, process_ends: bool = False) -> None:
        """Close the store; when the process ends right after (the executable's hook), it is
        left for the process's end (``Store.close_at_exit``)."""
        if self._store is not None:
            if process_ends:
                self._store.close_at_exit()
            else:
                self._store.close()


Handler = Callable[[Hook], "str | None"]


def log_failure(target: str, event: str, error: BaseException) -> None:
    """Append one JSON line to hooks.log (rotated at 1 MB), scrubbed as the store's rows are
    (an error's message or traceback may quote a prompt or a tool's output); never raises."""
    try:
        import traceback

        from vybe import privacy

        folder = config.config_dir()
        config.make_private_dir(folder)
        path = os.path.join(folder, LOG_NAME)
        if os.path.exists(path) and os.path.getsize(path) > LOG_MAX_BYTES:
            os.replace(path, path + ".1")
        line = {
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "target": target,
            "event": event,
            "error": f"{type(error).__name__}: {error}",
            "traceback": traceback.format_exc(limit=8),
        }
        with open(path, "a", encoding="utf-8", opener=config.private_opener) as handle:
            handle.write(jsonio.dumps(privacy.scrub_value(line), ensure_ascii=False) + "\n")
    except Exception:  # the log is best effort: the agent must never see a failure
        pass


def parse(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_INPUT_BYTES:
        raise ValueError(f"hook input of {len(raw)} bytes is over {MAX_INPUT_BYTES}")
    payload = jsonio.loads(raw.decode("utf-8", errors="replace"))
    if not isinstance(payload, dict):
        raise ValueError("hook input is not a JSON object")
    return payload


def render(target: str, event: str, context: str | None) -> str:
    """Only the fields this event accepts; context cut to the agent's limit."""
    if context and event in CONTEXT_EVENTS.get(target, ()):
        context = shorten(context, CONTEXT_LIMIT, "\n[cut to fit the hook limit]")
        output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
        return jsonio.dumps(output, ensure_ascii=False)
    required = target in JSON_ALWAYS or event in JSON_REQUIRED.get(target, ())
    return "{}" if required else ""


def import_lock(store: Store) -> str:
    """The lock file transcript imports into ``store`` take turns on (a prompt waits on it
    a little, so it lands after the reply an import is bringing in)."""
    return store.lock_file("import")


# A pattern, compiled (and cached by re) on first use: other events need no re module.
EXIT_LINE = r"(?i)(?:exit code|exit status|exited with code)\s*:?\s*(-?\d+)"


def exit_code(response: Any) -> int | None:
    """The exit code a shell tool's response reports, if it reports one."""
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


def not_recorded(hook: Hook) -> str | None:
    """Why nothing of this hook's session is recorded (None: it is): ``VYBE_RECORD=off`` in
    the agent's environment, or a working folder privacy.exclude_projects names."""
    from vybe import config

    if config.recording_off():
        return "VYBE_RECORD=off"
    if config.excluded_project(hook.cwd):
        return "privacy.exclude_projects"
    return None
