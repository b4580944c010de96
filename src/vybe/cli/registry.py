"""Commands register here with their metadata, so ``vybe schema`` can describe them all."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

from vybe.errors import UsageError

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any

    Handler = Callable[..., Any]

HELP_WIDTH = 80

# The top-level word of a command line -> the module that registers it. Only the module a
# command needs is imported, which keeps hooks and short commands fast.
GROUPS: dict[str, str] = {
    "init": "vybe.cli.admin",
    "status": "vybe.cli.admin",
    "schema": "vybe.cli.admin",
    "doctor": "vybe.cli.admin",
    "upgrade": "vybe.cli.admin",
    "project": "vybe.cli.projects",
    "task": "vybe.cli.tasks",
    "done": "vybe.cli.tasks",
    "block": "vybe.cli.tasks",
    "note": "vybe.cli.tasks",
    "events": "vybe.cli.events",
    "artifacts": "vybe.cli.events",
    "push": "vybe.cli.events",
    "hook": "vybe.cli.hook",
    "mcp": "vybe.cli.mcp",
    "chat": "vybe.cli.chat",
    "session": "vybe.cli.sessions",
    "memory": "vybe.cli.memory",
    "remember": "vybe.cli.memory",
    "resume": "vybe.cli.resume",
    "focus": "vybe.cli.resume",
    "brief": "vybe.cli.resume",
    "data": "vybe.cli.data",
    "maintain": "vybe.cli.maintain",
}


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of printing and exiting."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        """Help at the width a pipe gets, without argparse probing the terminal through shutil
        on every add_argument (2 ms at start-up): help goes into a JSON envelope anyway."""
        return self.formatter_class(prog=self.prog, width=HELP_WIDTH)

    def error(self, message: str) -> Any:
        raise UsageError(
            f"{self.prog}: {message}",
            context={"usage": self.format_usage().strip()},
            suggested_action="run `vybe schema` to see every command and its arguments",
        )

    def print_help(self, file: Any = None) -> None:
        raise HelpRequested(self.format_help())

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise UsageError(message or "usage error")


class HelpRequested(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class Command:
    """One registered command: its handler, its parser and whether it writes.

    A plain class, as Settings: `vybe status` then never imports the dataclasses module."""

    __slots__ = ("handler", "help", "mutates", "name", "parser")

    def __init__(
        self, name: str, help: str, mutates: bool, handler: Handler, parser: argparse.ArgumentParser
    ) -> None:
        self.name, self.help, self.mutates = name, help, mutates
        self.handler, self.parser = handler, parser


class Unparsed:
    """Stands in for the parser of a command this run will not parse: arguments are dropped."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        return None

    def add_mutually_exclusive_group(self, **kwargs: Any) -> Unparsed:
        return self

    def set_defaults(self, **kwargs: Any) -> None:
        return None


class Registry:
    """The commands and their parsers; with ``only`` (``"task list"``), the other commands of
    that group get no parser: building all of them cost `vybe task list` 1.6 ms."""

    def __init__(self, only: str | None = None) -> None:
        self.root = Parser(prog="vybe", add_help=True)
        self._subparsers = self.root.add_subparsers(dest="command", parser_class=Parser)
        self._groups: dict[str, argparse._SubParsersAction] = {}
        self.commands: dict[str, Command] = {}
        self._loaded: set[str] = set()
        self.only = only
        self.skipped = False

    def load(self, module: str) -> None:
        if module not in self._loaded:
            self._loaded.add(module)
            importlib.import_module(module).register(self)

    def load_all(self) -> None:
        for module in dict.fromkeys(GROUPS.values()):
            self.load(module)

    def group(
        self, word: str, help: str, handler: Handler | None = None, *, mutates: bool = False
    ) -> argparse.ArgumentParser:
        """A word with subcommands; with a handler it also runs on its own (``artifacts``)."""
        parser = self._subparsers.add_parser(word, help=help, description=help)
        self._groups[word] = parser.add_subparsers(dest="subcommand", parser_class=Parser)
        parser.set_defaults(_command=word if handler else None, _group=word)
        if handler:
            self.commands[word] = Command(word, help, mutates, handler, parser)
        return parser

    def command(
        self, name: str, handler: Handler, help: str, *, mutates: bool = False
    ) -> argparse.ArgumentParser | Unparsed:
        words = name.split()
        if len(words) == 2 and self.only not in (None, name) and self.only.split()[0] == words[0]:
            self.skipped = True
            return Unparsed()
        where = self._groups[words[0]] if len(words) == 2 else self._subparsers
        parser = where.add_parser(words[-1], help=help, description=help)
        parser.set_defaults(_command=name)
        self.commands[name] = Command(name, help, mutates, handler, parser)
        return parser
