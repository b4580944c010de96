"""``vybe hook run <target>``: the agent's event on stdin, its answer on stdout, always exit 0.

This speaks the agent's hook protocol, not the JSON envelope; the agent and the database
come from VYBE_AGENT / VYBE_DB_URL / VYBE_DB_PATH / the config file (the agent defaults to the
target), which the global flags of the line (``vybe --agent x hook run claude``) set first
(vybe.cli.flags.as_hooks_read).

A handler (vybe.integrations.hooks: claude_code, codex and gemini map an event to one) gets
a ``Hook`` and returns context text or nothing; whatever goes wrong, the agent sees exit 0
and the output its event accepts, and the error goes to ``hooks.log``.
"""

from __future__ import annotations

import os
import sys
import time

from vybe import config, jsonio, stdout
from vybe.errors import acting
from vybe.integrations.hooks.hook import (
    MAX_INPUT_BYTES,
    Hook,
    log_failure,
    not_recorded,
    parse,
    render,
)

TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from collections.abc import Mapping

    from vybe.integrations.hooks.hook import Handler

TARGETS = ("claude", "codex", "gemini")
# Capture mode: with this set to a folder, every payload an agent sends is kept there as it
# came (with the handler's own time), to turn real sessions into test fixtures.
CAPTURE_ENV = "VYBE_HOOK_CAPTURE"


def run_handler(argv: list[str], process_ends: bool = False) -> int:
    """``process_ends``: the executable ends the process once this returns."""
    try:
        target = argv[0] if argv and argv[0] in TARGETS else "claude"
        raw = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        answer = run(target, raw, process_ends)
        if answer:  # UTF-8 whatever the locale (its encoding could not write a brief's "é")
            stdout.write((answer + "\n").encode("utf-8", "backslashreplace"))
    except BaseException as error:  # a hook must never block or break the agent
        log_failure("?", "?", error)
    return 0


def handlers(target: str) -> Mapping[str, Handler]:
    """The target agent's handlers by event name."""
    if target == "codex":
        from vybe.integrations.hooks import codex

        return codex.HANDLERS
    if target == "gemini":
        from vybe.integrations.hooks import gemini

        return gemini.HANDLERS
    from vybe.integrations.hooks import claude_code

    return claude_code.HANDLERS


def capture(folder: str, target: str, raw: bytes, started: float, answer: str) -> None:
    """Keep one payload (``<ns>-<target>-<event>.json``) and its timing; never raises. The
    files are 600 in a 700 folder whatever the umask: they hold the person's words."""
    try:
        event = str(parse(raw).get("hook_event_name") or "unknown")
        config.make_private_dir(folder)
        stamp = time.time_ns()
        path = os.path.join(folder, f"{stamp}-{target}-{event}.json")
        config.write_whole(path, raw)
        line = {"target": target, "event": event, "ms": (time.perf_counter() - started) * 1000}
        line.update(at_ns=stamp, answered=bool(answer))
        timings = os.path.join(folder, "timings.jsonl")
        with open(timings, "a", encoding="utf-8", opener=config.private_opener) as handle:
            handle.write(jsonio.dumps(line) + "\n")
    except Exception:
        pass


def run(target: str, raw: bytes, process_ends: bool = False) -> str:
    """The stdout for one hook call (a JSON object, or nothing); kept in capture mode.
    ``process_ends``: the process ends once the answer is written (see ``Hook.close``): the
    executable's hook, which on a server store asks the local service first."""
    started = time.perf_counter()
    invocation = settings = answer = None
    if process_ends:
        invocation = f"{time.time_ns()}_{os.urandom(6).hex()}"
        settings = loaded_settings(target)
        if settings is not None and settings.db_url is not None:
            answer = by_service(target, raw, invocation)
    if answer is None:
        answer = answer_for(target, raw, process_ends, invocation, settings)
    folder = os.environ.get(CAPTURE_ENV)
    if folder:
        capture(folder, target, raw, started, answer)
    return answer


def loaded_settings(target: str) -> config.Settings | None:
    """The hook's settings; None when they cannot be loaded (the handler's own load then
    says why, in hooks.log)."""
    try:
        return config.load(os.environ.get("VYBE_AGENT") or target)
    except Exception:
        return None


def by_service(target: str, raw: bytes, invocation: str) -> str | None:
    """The local service's answer (vybe.cli.service) for a server's store; None when this
    process must run the hook itself (no service, one that failed: the same ``invocation``
    then replays what it wrote)."""
    if len(raw) > MAX_INPUT_BYTES:
        return None
    from vybe.integrations.hooks import service_link

    if not service_link.enabled():
        return None
    text = raw.decode("utf-8", "replace")
    fields = {"target": target, "raw": text, "invocation": invocation}
    return service_link.text_answer("hook", fields)


def answer_for(
    target: str,
    raw: bytes,
    process_ends: bool = False,
    invocation: str | None = None,
    settings: config.Settings | None = None,
) -> str:
    """The hook's answer, its handler run in this process; ``invocation`` names this call
    of the hook, for the writes that must happen once however often it is run (a prompt);
    ``settings``, when the caller loaded them already."""
    event = "?"
    hook: Hook | None = None
    try:
        payload = parse(raw)
        event = str(payload.get("hook_event_name") or "")
        handler = handlers(target).get(event)
        if handler is None:
            return render(target, event, None)
        # The hook knows its agent: the target (claude, codex) unless VYBE_AGENT names one.
        if settings is None:
            settings = config.load(os.environ.get("VYBE_AGENT") or target)
        hook = Hook(target, event, payload, acting(settings.agent), settings, invocation)
        why = not_recorded(hook)
        if why is not None:
            from vybe.integrations.hooks.unrecorded import unrecorded

            return render(target, event, unrecorded(hook, why))
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
