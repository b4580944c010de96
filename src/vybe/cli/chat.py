"""vybe chat: the agent runner, interactive or one message at a time (--once)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from vybe.cli import output, types
from vybe.cli.registry import Registry
from vybe.errors import VybeError

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse

PROMPT = "you> "
EXIT_WORDS = ("/exit", "/quit")


def add_model_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", choices=("openai", "anthropic"))
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    parser.add_argument("--api-key-env", help="the variable that holds the API key")
    parser.add_argument("--window", type=types.tokens, help="context window override, in tokens")
    parser.add_argument("--max-output", type=types.tokens, help="reply cap override, in tokens")
    parser.add_argument(
        "--no-stream",
        action="store_true",
        help="ask for whole replies (servers that cannot stream)",
    )


def choice(args: argparse.Namespace) -> Any:
    from vybe.llm.providers import Choice

    return Choice(
        args.provider,
        args.model,
        args.base_url,
        args.api_key_env,
        args.window,
        args.max_output,
        stream=not args.no_stream,
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


def chat(inv: Any, args: argparse.Namespace) -> dict:
    from vybe.agent.setup import start
    from vybe.agent.shell import BashPermission
    from vybe.context.recorder import record_user
    from vybe.llm.base import Watch

    interactive = args.once is None
    # Only a person at a terminal is asked; from a pipe the next line is input, not a yes.
    asks = interactive and sys.stdin.isatty()
    bash = BashPermission(args.allow_bash, _ask_bash if asks else None)
    screen = Screen()
    run = start(
        inv.store,
        inv.agent,
        inv.settings.config_file,
        choice(args),
        session_id=args.session,
        bash=bash,
        workdir=Path.cwd(),
        listen=screen.show if interactive else None,
        watch=Watch(screen.text, screen.retry) if interactive else None,
        read_anywhere=args.allow_read_anywhere,
    )
    record = run.runner.record
    if not interactive:
        record_user(record, run.session_id, args.once)
        report = run.runner.run(run.session_id)
        return {**report.as_dict(), "model": run.info.name, "window": run.info.window}
    return _interactive(run, record, record_user, screen)


def _interactive(run: Any, record: Any, record_user: Any, screen: Screen) -> dict:
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


def register(registry: Registry) -> None:
    parser = registry.command(
        "chat", chat, "talk with the vybe agent (interactive, or --once TEXT)", mutates=True
    )
    parser.add_argument("--once", metavar="TEXT", help="send one message, run to the end, exit")
    parser.add_argument("--session", help="continue this session (resumes unfinished work)")
    parser.add_argument("--allow-bash", action="store_true", help="let the agent run bash")
    parser.add_argument(
        "--allow-read-anywhere", action="store_true", help="let read go outside the folder"
    )
    add_model_flags(parser)
