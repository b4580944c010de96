"""Gemini CLI's hook handlers (0.61.0; the protocol as docs/integrations.md gives it): the
shared ones (this package's, a module an event) where its events match, and its own shapes.

Gemini CLI adds a hook's context in ``<hook_context>`` tags, its ``<`` and ``>`` escaped.
Its SessionStart context is no good place for the brief: headless (``gemini -p``) it is
prepended to the typed prompt, and a prompt that starts with ``<hook_context>`` is left out
of the history ``--resume`` rebuilds (the person's first words would vanish). So
SessionStart only notes that a session began; the brief comes with the first prompt after
it (BeforeAgent's context, a part of its own beside the prompt). Its PreCompress can add
nothing and fires before every model call with ``auto`` (whether or not the history is then
compressed): vybe hooks ``manual`` only (``/compress``), opens the compaction's receipt
there, and gives the person's words back with the next prompt. An automatic compression is
vybe proxy's to answer (vybe.proxy.compaction).

The brief names the record session (``vybe session gemini:<id>``): vybe proxy, which sees no
session id in Gemini CLI's requests, records the session under the hooks' name when it
reads that line (vybe.proxy.wire).
"""

from __future__ import annotations

import os

from vybe import jsonio
from vybe.actions import hooks as hook_actions
from vybe.integrations.hooks.commits import watching_commits
from vybe.integrations.hooks.hook import Hook
from vybe.integrations.hooks.pre_compact import pre_compact as open_receipt
from vybe.integrations.hooks.prompt import user_prompt
from vybe.integrations.hooks.session_end import session_end
from vybe.integrations.hooks.session_start import session_start as brief_at_start
from vybe.integrations.hooks.tool_failure import tool_failure

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.store.record import MessageRow

CONTEXT_OPEN, CONTEXT_CLOSE = "<hook_context>", "</hook_context>"
STARTS = "gemini-starts"  # the config dir's folder of sessions started, their brief not given
SESSION_LINE = "vybe session {}"  # the brief's last line: the record session, for vybe proxy
SAFE = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")


def typed(prompt: str) -> str:
    """The prompt as the person typed it: without the ``<hook_context>`` blocks Gemini CLI
    puts before it headless (a SessionStart hook's context, vybe's or another's)."""
    while prompt.startswith(CONTEXT_OPEN):
        end = prompt.find(CONTEXT_CLOSE)
        if end < 0:
            break
        prompt = prompt[end + len(CONTEXT_CLOSE) :].removeprefix("\n\n")
    return prompt


def start_mark(hook: Hook) -> str | None:
    """The file that says this session started and has not had its brief yet (its content:
    SessionStart's source); None for a session id that is no plain name."""
    from vybe import config

    session = hook.session_id
    if not session or not set(session) <= SAFE:
        return None
    return os.path.join(config.config_dir(), STARTS, session)


def session_start(hook: Hook) -> str | None:
    """Note the start (its source), for the first prompt after it to bring the brief."""
    from vybe import config

    mark = start_mark(hook)
    if mark is not None:
        config.make_private_dir(os.path.dirname(mark))
        config.write_whole(mark, hook.text("source") or "startup")
    return None


def started(hook: Hook) -> str | None:
    """SessionStart's source when this session's brief is still to give (the mark taken)."""
    mark = start_mark(hook)
    if mark is None:
        return None
    try:
        with open(mark, encoding="utf-8") as handle:
            source = handle.read().strip()
        os.unlink(mark)
    except OSError:
        return None
    return source or "startup"


def compressed(hook: Hook) -> bool:
    """Whether a ``/compress`` opened a receipt this session's prompts have not closed."""
    return hook_actions.receipt_open(hook.store, hook.record_session, hook.target)


def before_agent(hook: Hook) -> str | None:
    """After a ``/compress``, the person's words (the context Claude Code gets after its
    compaction), else after a session's start the brief (naming the record session), both
    read before this prompt is kept; then the typed prompt kept (once), and a status
    question's brief when there is nothing else to say."""
    hook.payload["prompt"] = typed(hook.text("prompt"))
    start = started(hook)
    source = "compact" if compressed(hook) else start
    context = None
    if source is not None:
        hook.payload["source"] = source
        context = given_at_start(hook)
    answer = user_prompt(hook)
    return context or answer


def given_at_start(hook: Hook) -> str | None:
    """What SessionStart(``source``) gives Claude Code, and the session's name. Its writes
    that happen once (a compaction's receipt) are keyed apart from the prompt's: both come
    from this one call of the hook."""
    invocation = hook.invocation
    hook.invocation = f"{invocation}:start" if invocation else None
    try:
        brief = brief_at_start(hook)
    finally:
        hook.invocation = invocation
    return f"{brief}\n\n{SESSION_LINE.format(hook.record_session)}" if brief else None


class Once:
    """The record, each row appended once by this event's request id and its place."""

    def __init__(self, hook: Hook) -> None:
        self.hook, self.count = hook, 0
        self.request = hook_actions.request_id(
            hook.target, hook.session_id, hook.event, hook.payload
        )

    def append(self, row: MessageRow) -> MessageRow:
        from vybe.store import record as record_rows

        self.count += 1
        once = (self.hook.agent, f"{self.request}:{self.count}")
        return record_rows.append_message(self.hook.store, row, once, self.hook.origin)


class Call:
    """A tool call as the record's writers take it (``id``, ``name``, ``arguments``)."""

    def __init__(self, hook: Hook) -> None:
        from vybe.digest import sha256_hex

        self.name = hook.text("tool_name") or "tool"
        arguments = hook.payload.get("tool_input")
        self.arguments = arguments if isinstance(arguments, dict) else {}
        stamp = f"{hook.session_id}\0{hook.text('timestamp')}\0{self.name}"
        self.id = "gemini-" + sha256_hex(stamp.encode("utf-8", "surrogatepass"))[:16]


def after_tool(hook: Hook) -> str | None:
    """The call and its result into the record (Gemini CLI sends no call id: one is made of
    the event's time), and a failed call logged as Claude's and Codex's are."""
    from vybe.context.recorder import record_reply, record_tool

    response = hook.payload.get("tool_response")
    response = response if isinstance(response, dict) else {}
    output, error = response.get("llmContent"), response.get("error")
    text = output if isinstance(output, str) else jsonio.dumps(output, ensure_ascii=False)
    call, record = Call(hook), Once(hook)
    record_reply(record, hook.record_session, "", [call])
    record_tool(record, hook.record_session, call, text, is_error=bool(error))
    if error:
        tool_failure(hook, error)
    return None


def after_agent(hook: Hook) -> str | None:
    """The turn's final reply into the record (once)."""
    from vybe.context.recorder import record_reply

    text = hook.text("prompt_response")
    if text.strip():
        record_reply(Once(hook), hook.record_session, text, [])
    return None


def pre_compress(hook: Hook) -> str | None:
    """``/compress``: open its receipt (the next prompt gives the person's words back)."""
    open_receipt(hook)
    return None


def end(hook: Hook) -> str | None:
    """The shared end, and the start's mark taken when no prompt came after it (the TUI
    opened and closed): no mark outlives its session."""
    started(hook)
    return session_end(hook)


HANDLERS = {
    "SessionStart": session_start,
    "BeforeAgent": watching_commits(before_agent),
    "AfterTool": watching_commits(after_tool),
    "AfterAgent": watching_commits(after_agent),
    "PreCompress": pre_compress,
    "SessionEnd": watching_commits(end),
}
