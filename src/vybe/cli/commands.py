"""The CLI's commands: the declared operations, the CLI's own (init, chat, session …) and the
older forms kept as aliases, by the first word of a command line."""

from __future__ import annotations

from vybe.operations import MODULES, Catalog, Command
from vybe.operations.model import CLI, Alias, Param

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
    "setup": "vybe.cli.setup",
    "proxy": "vybe.cli.proxy",
    "ui": "vybe.cli.ui",
    "admin": "vybe.cli.teams",
}


def every() -> Catalog:
    return Catalog(COMMAND_MODULES).load_all()


def names(catalog: Catalog) -> list[str]:
    return sorted([*catalog.operations, *catalog.aliases])


def cli_params(catalog: Catalog, command: Command) -> tuple[Param, ...]:
    """A command's parameters on the command line: an alias has its target's, less those its
    own (``extra``) replace."""
    if not isinstance(command, Alias):
        return command.on(CLI)
    target = catalog.target(command).on(CLI)
    return (*command.extra, *(p for p in target if p.name not in command.replaces))
