"""The argparse parsers of the registered commands: for help, errors, `vybe schema` and any
command line the plain parser leaves alone."""

from __future__ import annotations

import argparse

from vybe.cli.registry import HelpRequested, Registry
from vybe.errors import UsageError

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any

HELP_WIDTH = 80


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


def build(registry: Registry) -> Parser:
    """The root parser, with every group and command in the order they registered."""
    root = Parser(prog="vybe", add_help=True)
    top = root.add_subparsers(dest="command", parser_class=Parser)
    groups: dict[str, argparse._SubParsersAction] = {}
    for name in registry.order:
        if name in registry.groups:
            help, spec = registry.groups[name]
            parser = top.add_parser(name, help=help, description=help)
            groups[name] = parser.add_subparsers(dest="subcommand", parser_class=Parser)
        else:
            command = registry.commands[name]
            words = name.split()
            where = groups[words[0]] if len(words) == 2 else top
            parser = where.add_parser(words[-1], help=command.help, description=command.help)
            spec = command.spec
        spec.replay(parser)
        if name in registry.commands:
            registry.commands[name].parser = parser
    return root
