"""vybe chat: the agent runner, interactive or one message at a time (--once)."""

from __future__ import annotations

import sys

# pathlib and typing stay out: `vybe schema` loads this module for its declarations.
from vybe.cli import output
from vybe.errors import VybeError
from vybe.operations.common import SESSION_ID
from vybe.operations.model import CLI_ONLY, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from vybe.cli.main import Invocation
    from vybe.jsonio import JSONObject

GROUPS: dict[str, str] = {}
TOKENS: dict[str, Any] = {"minimum": 1, "maximum": 100_000_000}
MODEL = (
    Param("provider", help="the model's API", enum=("openai", "anthropic")),
    Param("model", help="the model's name (config models table)"),
    Param("base_url", help="the API's base URL"),
    Param("api_key_env", help="the environment variable that holds the API key"),
    Param("window", "integer", "context window override, in tokens", **TOKENS),
    Param("max_output", "integer", "reply cap override, in tokens", **TOKENS),
    Param("no_stream", "boolean", "ask for whole replies (servers that cannot stream)"),
)

PROMPT = "you> "
EXIT_WORDS = ("/exit", "/quit")


def choice(v: JSONObject) -> Any:
    from vybe.llm.providers import Choice

    return Choice(
        v["provider"],
        v["model"],
        v["base_url"],
        v["api_key_env"],
        v["window"],
        v["max_output"],
        stream=not v["no_stream"],
    )


def _ask_bash(command: str) -> bool:
    from vybe.agent.shell import shown

    sys.stderr.write(f"\nThe agent wants to run:\n  {shown(command)}\nAllow? [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


class Screen:
    """The interactive terminal: the agent's words on stdout as they stream, notes on stderr.

    A retried reply starts a fresh ``vibey>`` line after a one-line notice, so what broke off
    stays visibly apart from the reply that counts.
    """

    def __init__(self) -> None:
        self.open = False

    def text(self, piece: str) -> None:
        if not self.open:
            output.write("\nvibey> ")
            self.open = True
        output.write(piece)

    def retry(self, reason: str) -> None:
        self.end_line()
        sys.stderr.write(f"  [no complete reply yet ({reason[:160]}); retrying]\n")
        sys.stderr.flush()

    def end_line(self) -> None:
        if self.open:
            output.write("\n")
            self.open = False

    def show(self, kind: str, payload: dict[str, Any]) -> None:
        """The runner's listener: ends the streamed line, then notes calls and checkpoints."""
        self.end_line()
        if kind == "call":
            sys.stderr.write(f"  [{payload['name']}] {str(payload['arguments'])[:160]}\n")
        elif kind == "checkpoint":
            sys.stderr.write(f"  [checkpoint {payload['mode']}: {payload['outcome']}]\n")
        sys.stderr.flush()


def chat(inv: Invocation, v: JSONObject) -> JSONObject:
    """A chat on the user's store; with VYBE_RECORD=off on one of its own in a private
    temporary folder, removed when the chat ends (nothing of it is recorded)."""
    from vybe import config

    if not config.recording_off():
        return _chat(inv, inv.store, v)
    import os
    import tempfile

    from vybe.store import open_store

    with tempfile.TemporaryDirectory(prefix="vybe-unrecorded-") as folder:
        store = open_store(os.path.join(folder, "chat.db"))
        try:
            return _chat(inv, store, v)
        finally:
            store.close()


def _chat(inv: Invocation, store: Any, v: JSONObject) -> JSONObject:
    from pathlib import Path

    from vybe.agent.setup import start
    from vybe.agent.shell import BashPermission
    from vybe.context.recorder import record_user
    from vybe.llm.base import Watch

    interactive = v["once"] is None
    # Only a person at a terminal is asked; from a pipe the next line is input, not a yes.
    asks = interactive and sys.stdin.isatty()
    bash = BashPermission(v["allow_bash"], _ask_bash if asks else None)
    screen = Screen()
    run = start(
        store,
        inv.agent,
        inv.settings.config_file,
        choice(v),
        session_id=v["session_id"],
        bash=bash,
        workdir=Path.cwd(),
        listen=screen.show if interactive else None,
        watch=Watch(screen.text, screen.retry) if interactive else None,
        read_anywhere=v["allow_read_anywhere"],
    )
    record = run.runner.record
    if not interactive:
        record_user(record, run.session_id, v["once"])
        report = run.runner.run(run.session_id)
        return {**report.as_dict(), "model": run.info.name, "window": run.info.window}
    return _interactive(run, record, record_user, screen)


def _interactive(run: Any, record: Any, record_user: Any, screen: Screen) -> JSONObject:
    sys.stderr.write(f"vybe chat: session {run.session_id}, model {run.info.name}. /exit ends.\n")
    turns, checkpoints = 0, 0
    report = run.runner.run(run.session_id)
    while True:
        sys.stderr.write("\n" + PROMPT)
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line or line.strip() in EXIT_WORDS:
            break
        if not line.strip():
            continue
        record_user(record, run.session_id, line.rstrip("\n"))
        try:
            report = run.runner.run(run.session_id)
        except VybeError as error:
            screen.end_line()
            sys.stderr.write(f"\n[{error.code}] {error.message}\n")
            continue
        turns += 1
        checkpoints += sum(1 for c in report.checkpoints if c["outcome"] == "accepted")
    return {"session_id": run.session_id, "turns": turns, "checkpoints": checkpoints}


OPERATIONS = (
    Operation(
        "chat",
        "Talk with the vybe agent: interactive, or one message (once).",
        chat,
        params=(
            Param("once", help="send one message, run to the end, exit", metavar="TEXT"),
            SESSION_ID.but(
                required=False,
                positional=False,
                aliases=("--session",),
                help="continue this session (resumes unfinished work)",
            ),
            Param("allow_bash", "boolean", "let the agent run bash without asking"),
            Param("allow_read_anywhere", "boolean", "let read go outside the working folder"),
            *MODEL,
        ),
        writes=True,
        surfaces=CLI_ONLY,
        result={"session_id": "string", "turns": "integer"},
        examples=('vybe chat --once "what is left to do?"', "vybe chat --session-id s1"),
    ),
)
ALIASES = ()
