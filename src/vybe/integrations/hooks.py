"""One entry point for every agent hook: read the event, run its handler, never block the agent.

A handler gets a ``Hook`` and returns context text (or nothing). Whatever goes wrong, the
agent sees exit 0 and an empty stdout (``{}`` where it requires JSON, as Codex's Stop); the
error goes to ``hooks.log`` in the config dir.
Only the standard library is imported here and in the handlers: this runs on every prompt.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from vybe import config, jsonio
from vybe.errors import acting
from vybe.text import shorten

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any

MAX_INPUT_BYTES = 16 * 1024 * 1024
CONTEXT_LIMIT = 10_000
HOOK_BUSY_TIMEOUT_MS = 2000
LOG_NAME = config.HOOKS_LOG
LOG_MAX_BYTES = 1_000_000
# Capture mode: with this set to a folder, every payload an agent sends is kept there as it
# came (with the handler's own time), to turn real sessions into test fixtures.
CAPTURE_ENV = "VYBE_HOOK_CAPTURE"

# Events whose JSON output may carry hookSpecificOutput.additionalContext (docs/integrations.md).
CONTEXT_EVENTS = {
    "claude": {"SessionStart", "UserPromptSubmit", "PostToolUseFailure"},
    "codex": {"SessionStart", "UserPromptSubmit", "PostToolUse"},
}
# Events whose output must be JSON even when there is nothing to say (Codex Stop).
JSON_REQUIRED = {"codex": {"Stop"}}
# Events that write nothing of the record (a brief's cursor, a compaction's receipt, commit
# and end events): their commits skip the fsync each (``Store.sync_each_commit``) that keeps
# what the others write, the person's words, through a power cut.
UNSYNCED_EVENTS = frozenset({"SessionStart", "SessionEnd"})


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
    ) -> None:
        self.target, self.event, self.payload = target, event, payload
        self.agent, self.settings = agent, settings
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
        """The record session of this agent session: ``claude:<id>`` or ``codex:<id>``."""
        return f"{self.target}:{self.session_id}"

    @property
    def cwd(self) -> str:
        return str(self.payload.get("cwd") or os.getcwd())

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
    """Append one JSON line to hooks.log (rotated at 1 MB); never raises."""
    try:
        import traceback

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
            handle.write(jsonio.dumps(line, ensure_ascii=False) + "\n")
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
    return "{}" if event in JSON_REQUIRED.get(target, ()) else ""


def handlers(target: str) -> Mapping[str, Handler]:
    if target == "codex":
        from vybe.integrations import codex

        return codex.HANDLERS
    from vybe.integrations import claude_code

    return claude_code.HANDLERS


def capture(folder: str, target: str, raw: bytes, started: float, answer: str) -> None:
    """Keep one payload (``<ns>-<target>-<event>.json``) and its timing; never raises. The
    files are 600 in a 700 folder whatever the umask: they hold the person's words."""
    try:
        event = str(parse(raw).get("hook_event_name") or "unknown")
        config.make_private_dir(folder)
        stamp = time.time_ns()
        path = os.path.join(folder, f"{stamp}-{target}-{event}.json")
        with open(path, "wb", opener=config.private_opener) as handle:
            handle.write(raw)
        line = {"target": target, "event": event, "ms": (time.perf_counter() - started) * 1000}
        line.update(at_ns=stamp, answered=bool(answer))
        timings = os.path.join(folder, "timings.jsonl")
        with open(timings, "a", encoding="utf-8", opener=config.private_opener) as handle:
            handle.write(jsonio.dumps(line) + "\n")
    except Exception:
        pass


def run(target: str, raw: bytes, process_ends: bool = False) -> str:
    """The stdout for one hook call (a JSON object, or nothing); kept in capture mode.
    ``process_ends``: the process ends once the answer is written (see ``Hook.close``)."""
    started = time.perf_counter()
    answer = answer_for(target, raw, process_ends)
    folder = os.environ.get(CAPTURE_ENV)
    if folder:
        capture(folder, target, raw, started, answer)
    return answer


def answer_for(target: str, raw: bytes, process_ends: bool = False) -> str:
    event = "?"
    hook: Hook | None = None
    try:
        payload = parse(raw)
        event = str(payload.get("hook_event_name") or "")
        handler = handlers(target).get(event)
        if handler is None:
            return render(target, event, None)
        # The hook knows its agent: the target (claude, codex) unless VYBE_AGENT names one.
        settings = config.load(os.environ.get("VYBE_AGENT") or target)
        hook = Hook(target, event, payload, acting(settings.agent), settings)
        return render(target, event, handler(hook))
    except Exception as error:
        log_failure(target, event, error)
        return render(target, event, None)
    finally:
        if hook is not None:
            try:
                hook.close(process_ends)
            except Exception as error:
                log_failure(target, event, error)
