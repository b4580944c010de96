"""One argparse parser per command, built from its declaration; help is plain text."""

from __future__ import annotations

import argparse

from vybe.cli.commands import COMMAND_MODULES, cli_params, every, names
from vybe.cli.flags import GLOBAL_FLAGS
from vybe.errors import UsageError
from vybe.operations import Catalog, Command
from vybe.operations.model import Alias, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

HELP_WIDTH = 88
HELP_LINE = 100  # the widest line of `vybe --help` and of a group's help

TAGLINE = "vybe: durable memory for AI agents, kept across sessions, restarts and compactions."
# The commands a newcomer starts with, in `vybe --help`'s order; one not installed is left out.
START_HERE = ("setup", "resume", "search", "status", "ui")


class HelpRequested(Exception):
    """``--help``: the text goes to stdout as it is, exit 0."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class Formatter(argparse.RawDescriptionHelpFormatter):
    """The description and examples as written; a fixed width, the same on a terminal and
    in a pipe (and no probing of the terminal on every argument)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=HELP_WIDTH, max_help_position=32)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(
            f"{self.prog}: {message}",
            context={"usage": self.format_usage().strip()},
            suggested_action=f"run `{self.prog} --help` or `vybe schema`",
        )

    def print_help(self, file: object = None) -> None:
        raise HelpRequested(self.format_help())

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise UsageError(message or "usage error")


def _converter(param: Param) -> Callable[[str], object]:
    def convert(text: str) -> object:
        try:
            return param.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = param.type
    return convert


def _help(param: Param) -> str:
    text = param.help
    if param.enum:
        text += f" (one of: {', '.join(param.enum)})"
    if param.type != "boolean" and param.default not in (None, ""):
        text += f" (default: {param.default})"
    return text.replace("%", "%%")


def _add(parser: Parser, param: Param, positional: bool) -> None:
    metavar = param.metavar or param.name.upper()
    flags = (param.flag, *param.aliases)
    if param.type == "boolean":
        parser.add_argument(*flags, dest=param.name, action="store_true", help=_help(param))
        return
    convert, text = _converter(param), _help(param)
    if positional:
        parser.add_argument(
            f"{param.name}:positional", nargs="?", metavar=metavar, type=convert, help=text
        )
        parser.add_argument(
            *flags, dest=param.name, metavar=metavar, default=param.default, type=convert, help=text
        )
        return
    parser.add_argument(
        *flags,
        dest=param.name,
        metavar=metavar,
        default=param.default,
        required=param.required,
        type=convert,
        help=text,
    )


def _positionals(command: Command) -> tuple[str, ...]:
    return command.positionals if isinstance(command, Alias) else ()


def build(catalog: Catalog, command: Command) -> Parser:
    op = catalog.target(command)
    parser = Parser(
        prog=f"vybe {command.name}",
        description=_description(command, op),
        epilog=_epilog(op),
        formatter_class=Formatter,
    )
    taken = _positionals(command)
    for param in cli_params(catalog, command):
        _add(parser, param, param.positional or param.name in taken)
    return parser


def _description(command: Command, op: Operation) -> str:
    text = command.summary
    if isinstance(command, Alias):
        text += f"\nThe older form of `vybe {op.name}`."
    if op.writes:
        text += "\nIt writes: --request-id (or VYBE_REQUEST_ID) makes a retry safe."
    return text


def _epilog(op: Operation) -> str:
    examples = "\n".join(f"  {example}" for example in op.examples)
    return f"examples:\n{examples}" if examples else ""


def parse(catalog: Catalog, command: Command, tokens: list[str]) -> dict[str, object]:
    """The command's values, every parameter present; a missing required one, a bad value
    or an unknown flag is a usage error (exit 2)."""
    parser = build(catalog, command)
    # After ``--`` every token is a value (``vybe search -- -word``); argparse's intermixed
    # parsing, which lets options follow values, drops that meaning, and needs none there.
    parse = parser.parse_args if "--" in tokens else parser.parse_intermixed_args
    values = vars(parse(tokens))
    for key in [k for k in values if k.endswith(":positional")]:
        name, given = key.split(":")[0], values.pop(key)
        if given is not None and values[name] not in (
            None,
            given,
            _default(catalog, command, name),
        ):
            parser.error(f"{name} given twice")
        if given is not None:
            values[name] = given
    for param in cli_params(catalog, command):
        if param.required and values.get(param.name) is None:
            parser.error(f"the following arguments are required: {param.name}")
    return values


def _default(catalog: Catalog, command: Command, name: str) -> object:
    return next(p.default for p in cli_params(catalog, command) if p.name == name)


def find(rest: list[str]) -> tuple[Catalog, Command, list[str]]:
    """The command ``rest`` starts with (an operation or an alias) and the tokens after it.
    A group word alone (``vybe task``) is a usage error listing its subcommands, unless it
    asks for help (HelpRequested with the group's help)."""
    catalog = Catalog(COMMAND_MODULES).for_word(rest[0])
    known: dict[str, Command] = {**catalog.operations, **catalog.aliases}
    word = rest[0]
    if word in catalog.groups and rest[1:2] in (["--help"], ["-h"]):
        raise HelpRequested(group_help(word, catalog))
    for size in (3, 2, 1):
        name = " ".join(rest[:size])
        if len(rest) >= size and name in known:
            return catalog, known[name], rest[size:]
    if word in catalog.groups:
        subcommands = _subcommands(word, catalog)
        what = f"`vybe {word} {rest[1]}` is not a command" if rest[1:] else None
        raise UsageError(
            what or f"`vybe {word}` needs a subcommand",
            context={"subcommands": subcommands},
            suggested_action=f"run `vybe {word} --help` or `vybe schema`",
        )
    raise UsageError(
        f"unknown command {word!r}",
        context={"commands": names(every())},
        suggested_action="run `vybe --help` or `vybe schema` to see every command",
    )


def _subcommands(word: str, catalog: Catalog) -> list[str]:
    return sorted(n for n in (*catalog.operations, *catalog.aliases) if n.startswith(word + " "))


def _columns(rows: list[tuple[str, str]]) -> list[str]:
    """Each row's name, then its text wrapped so that no line passes HELP_LINE."""
    import textwrap

    width = max(len(name) for name, _ in rows)
    lines: list[str] = []
    for name, text in rows:
        lines += textwrap.wrap(
            text,
            HELP_LINE,
            initial_indent=f"  {name:<{width}}  ",
            subsequent_indent=" " * (width + 4),
            break_on_hyphens=False,
        )
    return lines


def _summaries(catalog: Catalog, listed: list[str]) -> list[str]:
    known: dict[str, Command] = {**catalog.operations, **catalog.aliases}
    return _columns([(name, known[name].summary) for name in listed])


def group_help(word: str, catalog: Catalog) -> str:
    """`vybe GROUP --help`: the group's summary and each of its commands in a line."""
    lines = [f"usage: vybe {word} <subcommand> [options]", "", catalog.groups[word], ""]
    lines += ["subcommands:", *_summaries(catalog, _subcommands(word, catalog))]
    lines += ["", f"`vybe {word} <subcommand> --help` describes one."]
    return "\n".join(lines) + "\n"


def overview_help(catalog: Catalog) -> str:
    """`vybe --help` (and `vybe` alone in a terminal): the tagline, the commands to start
    with, each group with its summary, the other commands, the global flags."""
    single = [name for name in names(catalog) if " " not in name]
    start = [name for name in START_HERE if name in single]
    groups = list(catalog.groups)
    others = [name for name in single if name not in start and name not in groups]
    flags = [(", ".join(g["flags"]), f"{g['help']} (${g['env']})") for g in GLOBAL_FLAGS]
    lines = [TAGLINE, "", "usage: vybe <command> [options]", "", "start here:"]
    lines += _summaries(catalog, start)
    lines += ["", "groups (`vybe GROUP --help` lists a group's commands):"]
    lines += _columns([(word, catalog.groups[word]) for word in groups])
    lines += ["", "other commands:", *_summaries(catalog, others)]
    lines += ["", "global options (anywhere on the line):", *_columns(flags)]
    lines += ["", "`vybe <command> --help` describes one; `vybe schema` all of them, as JSON."]
    return "\n".join(lines) + "\n"
