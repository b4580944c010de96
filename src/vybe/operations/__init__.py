"""Every vybe operation, declared once (vybe.operations.model), found by its first word.

Each module here declares ``OPERATIONS``, ``ALIASES`` and ``GROUPS`` (the summary of each
word that has subcommands). Only the module a command line names is imported, so a command
pays for its own declarations only.
"""

from __future__ import annotations

from vybe.operations.model import Alias, Operation

Command = Operation | Alias  # what a command line names

# The first word of a command -> the module that declares it.
MODULES = {
    "maintain": "vybe.operations.maintain",
    "forget": "vybe.operations.forget",
    "project": "vybe.operations.projects",
    "task": "vybe.operations.tasks",
    "done": "vybe.operations.tasks",
    "block": "vybe.operations.tasks",
    "note": "vybe.operations.tasks",
    "events": "vybe.operations.events",
    "artifacts": "vybe.operations.events",
    "push": "vybe.operations.events",
    "memory": "vybe.operations.memory",
    "remember": "vybe.operations.memory",
    "resume": "vybe.operations.resume",
    "focus": "vybe.operations.resume",
    "brief": "vybe.operations.resume",
    "search": "vybe.operations.search",
    "session": "vybe.operations.sessions",
}


class Catalog:
    """The declarations of the modules loaded so far: operations and aliases by command
    line, group summaries by word, in declaration order. ``modules`` maps first words to
    modules (a surface above this layer adds its own, as the CLI does its commands)."""

    def __init__(self, modules: dict[str, str] | None = None) -> None:
        self.modules = MODULES if modules is None else modules
        self.operations: dict[str, Operation] = {}
        self.aliases: dict[str, Alias] = {}
        self.groups: dict[str, str] = {}
        self._loaded: set[str] = set()

    def load(self, module: str) -> Catalog:
        if module not in self._loaded:
            self._loaded.add(module)
            declared = __import__(module, fromlist=["OPERATIONS"])
            self.operations.update((op.name, op) for op in declared.OPERATIONS)
            self.aliases.update((alias.name, alias) for alias in declared.ALIASES)
            self.groups.update(declared.GROUPS)
        return self

    def load_all(self) -> Catalog:
        for module in dict.fromkeys(self.modules.values()):
            self.load(module)
        return self

    def for_word(self, word: str) -> Catalog:
        """Load the module that declares ``word`` (nothing when no module does)."""
        module = self.modules.get(word)
        return self.load(module) if module else self

    def target(self, command: Command) -> Operation:
        """The operation a command runs: its own, or an alias's target."""
        return self.operations[command.target] if isinstance(command, Alias) else command

    def on(self, surface: str) -> list[Operation]:
        """The operations a surface offers, in declaration order."""
        return [op for op in self.operations.values() if surface in op.surfaces]


def catalog(modules: dict[str, str] | None = None) -> Catalog:
    """Every declaration (of ``modules``)."""
    return Catalog(modules).load_all()
