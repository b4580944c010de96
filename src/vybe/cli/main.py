"""Entry point: global flags anywhere, one command, one JSON envelope, stable exit codes."""

from __future__ import annotations

import os
import sys

from vybe import __version__, clock, stdout
from vybe.cli import output
from vybe.cli.flags import split_globals
from vybe.errors import InvalidInput, VybeError, acting
from vybe.operations.model import CLI
from vybe.text import from_os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from vybe.config import Settings
    from vybe.store import Store


def _environment(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None:
        return None
    text = from_os(value)
    if text is None:
        raise InvalidInput(f"{name} is not valid UTF-8 text", context={"field": name})
    return text


class Invocation:
    """What one command run knows: who is acting, on which store, under which request id.

    Only a command that writes creates the store; a read of a missing one is DB_UNAVAILABLE."""

    surface = CLI

    def __init__(self, flags: dict[str, str], writes: bool = True) -> None:
        self.flags = flags  # the global flags given, by name (agent, db_path, …)
        self.writes = writes
        self._settings: Settings | None = None
        self._store: Store | None = None
        self._request_id = flags.get("request_id") or _environment("VYBE_REQUEST_ID")

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from vybe import config

            flags = self.flags
            self._settings = config.load(
                flags.get("agent"), flags.get("db_path"), flags.get("db_url")
            )
        return self._settings

    @property
    def agent(self) -> str:
        """Who acts: AGENT_REQUIRED when no agent is named (read only by what acts as one)."""
        return acting(self.settings.agent)

    @property
    def named(self) -> str | None:
        """The agent named, or None: for a read that narrows to an agent only when one is."""
        return self.settings.agent

    @property
    def store(self) -> Store:
        if self._store is None:
            from vybe.store import open_store

            self._store = open_store(
                self.settings.location, self.settings.busy_timeout_ms, create=self.writes
            )
        return self._store

    @property
    def request_id(self) -> str:
        if not self._request_id:
            self._request_id = clock.new_id("req")
        return self._request_id

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _utf8_arguments(argv: list[str]) -> list[str]:
    """The arguments as UTF-8 text whatever the locale; bytes that are not UTF-8 (which
    cannot be stored) are refused."""
    decoded = []
    for position, token in enumerate(argv):
        text = from_os(token)
        if text is None:
            raise InvalidInput(
                f"argument {position + 1} is not valid UTF-8 text",
                context={"position": position + 1},
                suggested_action="pass text encoded as UTF-8",
            )
        decoded.append(text)
    return decoded


def overview() -> dict[str, object]:
    from vybe.cli.commands import every, names

    return {"version": __version__, "commands": names(every()), "schema_hint": "vybe schema"}


def _dispatch(flags: dict[str, str], rest: list[str]) -> tuple[int, str, str | None]:
    """Find the command, parse its line, run its operation; help is plain text. The third
    value is the request id of a write that was done (None for a read)."""
    from vybe.cli import commands, parsers
    from vybe.operations.model import Alias

    if rest[0] in ("--help", "-h", "help"):
        raise parsers.HelpRequested(parsers.overview_help(commands.every()))
    catalog, command, tokens = parsers.find(rest)
    values = parsers.parse(catalog, command, tokens)
    op = catalog.target(command)
    if isinstance(command, Alias) and command.convert:
        values = command.convert(values)
    invocation = Invocation(flags, writes=op.writes_with(values))
    try:
        result = op.call(invocation, values)
        done = invocation.request_id if invocation.writes else None
        if values.get("format") == "text":
            return 0, op.as_text(result).rstrip("\n"), done
        if values.get("jsonl") and op.listing:
            return 0, output.lines(result, op.listing), done
        return 0, output.success(result), done
    finally:
        invocation.close()


def run(argv: list[str], terminal: bool = False) -> tuple[int, str]:
    """One command line: the exit code and what goes to stdout (the JSON envelope, or the
    plain text of --help). ``vybe`` alone is ``vybe --help`` for a person at a ``terminal``,
    the version and the command list as JSON for a program."""
    code, text, _ = answer(argv, terminal)
    return code, text


def answer(argv: list[str], terminal: bool = False) -> tuple[int, str, str | None]:
    """``run``'s exit code and stdout, and the request id of the write it did, if any."""
    from vybe.cli.parsers import HelpRequested

    try:
        flags, rest = split_globals(_utf8_arguments(argv))
        if rest == ["--version"]:
            return 0, output.success({"version": __version__}), None
        if not rest and not terminal:
            return 0, output.success(overview()), None
        if not rest:
            rest = ["--help"]
        return _dispatch(flags, rest)
    except HelpRequested as help_:
        return 0, help_.text.rstrip("\n"), None
    except VybeError as error:
        return error.exit_code, output.failure(error), None
    except KeyboardInterrupt:
        return 130, output.failure(VybeError("interrupted", code="INTERRUPTED")), None
    except stdout.Lost as lost:  # a command that prints as it goes (chat) lost its stdout
        return 1, output.failure(VybeError(f"stdout could not be written: {lost}")), None
    except Exception as exc:  # an unexpected failure: a stable code, details on stderr
        import traceback

        traceback.print_exc(file=sys.stderr)
        failed = VybeError(f"internal error: {type(exc).__name__}: {exc}", code="INTERNAL")
        return 1, output.failure(failed), None


def _to_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # no stdout, or a closed one
        return False


def main(argv: list[str] | None = None) -> int:
    """Run and print; when stdout cannot take the result (closed, full, a reader gone), one
    line on stderr says what the command did and the exit is ``output.UNPRINTED``."""
    code, text, done = answer(sys.argv[1:] if argv is None else argv, terminal=_to_terminal())
    try:
        output.emit(text)
    except (OSError, ValueError) as exc:
        return output.unprinted(exc, code, done)
    return code
