"""The CLI's commands: the declared operations, the CLI's own (init, chat, session …) and the
older forms kept as aliases; finding the one a command line names; ``vybe schema``."""

from __future__ import annotations

from vybe import __version__
from vybe.errors import UsageError
from vybe.operations import MODULES, Catalog, Command
from vybe.operations.model import CLI, MCP, Alias, Param

# The first word of a command line -> the module that declares it.
COMMAND_MODULES = {
    **MODULES,
    "init": "vybe.cli.admin",
    "status": "vybe.cli.admin",
    "schema": "vybe.cli.admin",
    "doctor": "vybe.cli.admin",
    "upgrade": "vybe.cli.admin",
    "data": "vybe.cli.admin",
    "hook": "vybe.cli.hook",
    "statusline": "vybe.cli.hook",
    "mcp": "vybe.cli.mcp",
    "chat": "vybe.cli.chat",
    "session": "vybe.cli.sessions",
    "store": "vybe.cli.stores",
}
GLOBAL_FLAGS = (
    {"flags": ["--agent", "-a"], "env": "VYBE_AGENT", "help": "who is acting"},
    {"flags": ["--db-path"], "env": "VYBE_DB_PATH", "help": "the SQLite store"},
    {
        "flags": ["--db-url"],
        "env": "VYBE_DB_URL",
        "help": "a PostgreSQL store (postgresql://user@host:port/db)",
    },
    {"flags": ["--request-id"], "env": "VYBE_REQUEST_ID", "help": "idempotency key"},
)


def every() -> Catalog:
    return Catalog(COMMAND_MODULES).load_all()


def names(catalog: Catalog) -> list[str]:
    return sorted([*catalog.operations, *catalog.aliases])


def find(rest: list[str]) -> tuple[Catalog, Command, list[str]]:
    """The command ``rest`` starts with (an operation or an alias) and the tokens after it.
    A group word alone (``vybe task``) is a usage error listing its subcommands, unless it
    asks for help (HelpRequested with the group's help)."""
    catalog = Catalog(COMMAND_MODULES).for_word(rest[0])
    known: dict[str, Command] = {**catalog.operations, **catalog.aliases}
    for size in (2, 1):
        name = " ".join(rest[:size])
        if len(rest) >= size and name in known:
            return catalog, known[name], rest[size:]
    word = rest[0]
    if word in catalog.groups:
        from vybe.cli.parsers import HelpRequested, group_help

        subcommands = sorted(n for n in known if n.startswith(word + " "))
        if any(t in ("--help", "-h") for t in rest[1:2]):
            raise HelpRequested(group_help(word, catalog.groups[word], catalog, subcommands))
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


def _param(param: Param, positional: bool) -> dict:
    return {
        "name": param.name,
        "flags": [param.flag, *param.aliases],
        "positional": positional or param.positional,
        "required": param.required,
        "type": param.type,
        "choices": list(param.enum) if param.enum else None,
        "default": param.default,
        "minimum": param.minimum,
        "maximum": param.maximum,
        "help": param.help,
    }


def _command(catalog: Catalog, command: Command) -> dict:
    op = catalog.target(command)
    params = cli_params(catalog, command)
    positionals = command.positionals if isinstance(command, Alias) else ()
    return {
        "command": command.name,
        "description": command.summary,
        "alias_of": op.name if isinstance(command, Alias) else None,
        "args_schema": [_param(p, p.name in positionals) for p in params],
        "mutates": op.writes,
        "read_only_with": op.peek,
        "requires_request_id": False,
        "accepts_request_id": op.writes,
        "mcp_tool": op.tool if MCP in op.surfaces else None,
        "examples": list(op.examples),
    }


def cli_params(catalog: Catalog, command: Command) -> tuple[Param, ...]:
    """A command's parameters on the command line: an alias has its target's, less those its
    own (``extra``) replace."""
    if not isinstance(command, Alias):
        return command.on(CLI)
    target = catalog.target(command).on(CLI)
    return (*command.extra, *(p for p in target if p.name not in command.replaces))


def describe() -> dict:
    """`vybe schema`: every command, its parameters, the envelope and the agent protocol."""
    from vybe.cli.admin import AGENT_PROTOCOL

    catalog = every()
    commands: dict[str, Command] = {**catalog.operations, **catalog.aliases}
    return {
        "version": __version__,
        "global_flags": list(GLOBAL_FLAGS),
        "envelope": {
            "success": {"schema_version": "v1", "success": True, "data": "..."},
            "error": [
                "schema_version",
                "success",
                "error",
                "error_code",
                "error_context",
                "suggested_action",
            ],
            "exit_codes": {"0": "success", "1": "error", "2": "usage error"},
        },
        "commands": [_command(catalog, commands[name]) for name in sorted(commands)],
        "agent_protocol": AGENT_PROTOCOL,
    }
