"""Plain command lines, parsed from the recorded ``add_argument`` calls without argparse.

Plain means: the command's words, then exact options with a value (``--limit 5``,
``--limit=5``), flags (``store_true``) and positionals, no value starting with ``-``, and
every value accepted by its type and choices. The namespace is the one argparse builds for
such a line (tested command by command). Anything else gives None, and argparse parses the
line: help, errors and abbreviations read exactly as before.
"""

from __future__ import annotations

from types import SimpleNamespace

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any

    from vybe.cli.registry import Registry, Spec

# add_argument options this parser understands; any other sends the line to argparse.
KNOWN_OPTIONS = frozenset(
    {"action", "choices", "default", "dest", "help", "metavar", "required", "type"}
)
ACTIONS = ("store", "store_true")


class Argument:
    """One recorded argument: where its value goes and how it is checked."""

    __slots__ = ("choices", "default", "dest", "flag", "required", "type")

    def __init__(self, dest: str, options: dict[str, Any]) -> None:
        self.dest = dest
        self.flag = options.get("action") == "store_true"
        self.type = options.get("type")
        self.choices = options.get("choices")
        self.required = options.get("required", False)
        self.default = options.get("default", False if self.flag else None)

    def value(self, text: str) -> Any:
        """The converted value; ValueError when argparse would refuse it."""
        value = self.type(text) if self.type else text
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{value!r} is not a choice")
        return value


class Arguments:
    """A spec's arguments: options by option string, positionals in order, and defaults."""

    def __init__(self, spec: Spec) -> None:
        self.options: dict[str, Argument] = {}
        self.positionals: list[Argument] = []
        self.defaults: dict[str, Any] = {}
        self.plain = True
        for method, names, options, _group in spec.calls:
            if method == "set_defaults":
                self.defaults.update(options)
            elif method != "add_argument" or not self._add(names, options):
                self.plain = False

    def _add(self, names: tuple[str, ...], options: dict[str, Any]) -> bool:
        if set(options) - KNOWN_OPTIONS or options.get("action", "store") not in ACTIONS:
            return False
        if not names[0].startswith("-"):
            self.positionals.append(Argument(names[0], options))
            return True
        long = [n for n in names if n.startswith("--")]
        dest = options.get("dest") or (long or names)[0].lstrip("-").replace("-", "_")
        argument = Argument(dest, options)
        self.options.update(dict.fromkeys(names, argument))
        return True

    def fill(self, namespace: dict[str, Any], tokens: list[str]) -> bool:
        """Set this spec's values from ``tokens``; False when the line is not plain."""
        given: dict[str, Any] = {}
        positionals = iter(self.positionals)
        tokens = iter(tokens)
        for token in tokens:
            if token.startswith("-"):
                name, equals, text = token.partition("=")
                argument = self.options.get(name if token.startswith("--") else token)
                if argument is None or (argument.flag and equals):
                    return False
                if argument.flag:
                    given[argument.dest] = True
                    continue
                if not equals:
                    text = next(tokens, "-")
                    if text.startswith("-"):
                        return False
            else:
                argument, text = next(positionals, None), token
                if argument is None:
                    return False
            try:
                given[argument.dest] = argument.value(text)
            except Exception:  # argparse says what is wrong with it
                return False
        if next(positionals, None) is not None:
            return False
        for argument in self.options.values():
            if argument.dest not in given:
                if argument.required:
                    return False
                namespace[argument.dest] = self._default(argument)
        namespace.update(self.defaults)
        namespace.update(given)
        return True

    @staticmethod
    def _default(argument: Argument) -> Any:
        """As argparse: a string default goes through the argument's type."""
        if isinstance(argument.default, str) and argument.type:
            return argument.type(argument.default)
        return argument.default


def parse(registry: Registry, argv: list[str]) -> SimpleNamespace | None:
    """The namespace of a plain command line, or None for argparse to parse it."""
    word, *rest = argv or [""]
    namespace: dict[str, Any] = {"command": word}
    specs = []
    if word in registry.groups:
        namespace["subcommand"] = None
        specs.append(registry.groups[word][1])
        name = f"{word} {rest[0]}" if rest else ""
        if name in registry.commands:
            namespace["subcommand"], rest = rest[0], rest[1:]
            specs.append(registry.commands[name].spec)
        elif word not in registry.commands:
            return None
    elif word in registry.commands:
        specs.append(registry.commands[word].spec)
    else:
        return None
    *outer, inner = [Arguments(spec) for spec in specs]
    if not all(arguments.plain for arguments in (*outer, inner)):
        return None
    for arguments in outer:
        if not arguments.fill(namespace, []):
            return None
    return SimpleNamespace(**namespace) if inner.fill(namespace, rest) else None
