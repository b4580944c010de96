"""Commands register here with their metadata, so ``vybe schema`` can describe them all.

A command's arguments are recorded as its ``add_argument`` calls (a ``Spec``). A plain
command line (long options, flags, positionals) is parsed straight from them; anything else
(help, an error, an abbreviation, ``--``) replays them into argparse, which then parses the
whole line as before. argparse with gettext, locale and re costs a command ~4 ms at start-up.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

    Handler = Callable[..., Any]

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


class HelpRequested(Exception):
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class Spec:
    """A parser's ``add_argument`` calls, as a command module makes them, kept for later."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict[str, Any], Spec | None]] = []

    def add_argument(self, *names: str, **options: Any) -> None:
        self.calls.append(("add_argument", names, options, None))

    def add_mutually_exclusive_group(self, **options: Any) -> Spec:
        group = Spec()
        self.calls.append(("add_mutually_exclusive_group", (), options, group))
        return group

    def set_defaults(self, **values: Any) -> None:
        self.calls.append(("set_defaults", (), values, None))

    def replay(self, parser: Any) -> None:
        """Make the same calls on an argparse parser (or group)."""
        for method, names, options, group in self.calls:
            made = getattr(parser, method)(*names, **options)
            if group is not None:
                group.replay(made)


class Command:
    """One registered command: its handler, its arguments and whether it writes; ``parser``
    is its argparse parser once one was built.

    A plain class, as Settings: `vybe status` then never imports the dataclasses module."""

    __slots__ = ("handler", "help", "mutates", "name", "parser", "spec")

    def __init__(self, name: str, help: str, mutates: bool, handler: Handler, spec: Spec) -> None:
        self.name, self.help, self.mutates = name, help, mutates
        self.handler, self.spec = handler, spec
        self.parser: argparse.ArgumentParser | None = None


class Unparsed:
    """Stands in for the parser of a command this run will not parse: arguments are dropped."""

    def add_argument(self, *args: Any, **kwargs: Any) -> None:
        return None

    def add_mutually_exclusive_group(self, **kwargs: Any) -> Unparsed:
        return self

    def set_defaults(self, **kwargs: Any) -> None:
        return None


class Registry:
    """The commands and their arguments; with ``only`` (``"task list"``), the other commands of
    that group record nothing: building all of them cost `vybe task list` 1.6 ms."""

    def __init__(self, only: str | None = None) -> None:
        self.commands: dict[str, Command] = {}
        self.groups: dict[str, tuple[str, Spec]] = {}
        self.order: list[str] = []  # groups and commands, as registered: argparse's order
        self._loaded: set[str] = set()
        self._root: argparse.ArgumentParser | None = None
        self.only = only
        self.skipped = False

    def load(self, module: str) -> None:
        if module not in self._loaded:
            self._loaded.add(module)
            __import__(module)  # importlib itself costs a command ~0.3 ms
            sys.modules[module].register(self)

    def load_all(self) -> None:
        for module in dict.fromkeys(GROUPS.values()):
            self.load(module)

    def group(
        self, word: str, help: str, handler: Handler | None = None, *, mutates: bool = False
    ) -> Spec:
        """A word with subcommands; with a handler it also runs on its own (``artifacts``)."""
        spec = Spec()
        spec.set_defaults(_command=word if handler else None, _group=word)
        self.groups[word] = (help, spec)
        self.order.append(word)
        if handler:
            self.commands[word] = Command(word, help, mutates, handler, spec)
        return spec

    def command(
        self, name: str, handler: Handler, help: str, *, mutates: bool = False
    ) -> Spec | Unparsed:
        words = name.split()
        if len(words) == 2 and self.only not in (None, name) and self.only.split()[0] == words[0]:
            self.skipped = True
            return Unparsed()
        spec = Spec()
        spec.set_defaults(_command=name)
        self.commands[name] = Command(name, help, mutates, handler, spec)
        self.order.append(name)
        return spec

    def parse(self, argv: list[str]) -> Any:
        """The namespace argparse would give for ``argv``: without argparse when it is plain."""
        from vybe.cli import plain

        found = plain.parse(self, argv)
        return found if found is not None else self.argparser().parse_args(argv)

    def argparser(self) -> argparse.ArgumentParser:
        """The argparse parser of every registered command (each ``Command.parser`` set)."""
        if self._root is None:
            from vybe.cli import argparsing

            self._root = argparsing.build(self)
        return self._root
