"""The plain parser gives argparse's namespace for every command, or leaves the line alone."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vybe.cli import plain
from vybe.cli.registry import Registry
from vybe.errors import UsageError

CANDIDATES = ["5", "10m", "task_1", "0.5", "x"]


def _registry() -> Registry:
    registry = Registry()
    registry.load_all()
    registry.argparser()
    return registry


REGISTRY = _registry()


def _value(argument: plain.Argument) -> str:
    """A value the argument's type and choices accept."""
    for text in [*(argument.choices or []), *CANDIDATES]:
        try:
            argument.value(str(text))
        except Exception:
            continue
        return str(text)
    raise AssertionError(f"no candidate value for {argument.dest}")


def _lines(name: str) -> list[list[str]]:
    """The command with only what it requires, with every argument, and with ``--opt=value``."""
    arguments = plain.Arguments(REGISTRY.commands[name].spec)
    words = name.split()
    positionals = [_value(a) for a in arguments.positionals]
    options = {}
    for flag, argument in arguments.options.items():
        if flag.startswith("--") and argument not in options.values():
            options[flag] = argument
    required = [t for f, a in options.items() if a.required for t in (f, _value(a))]
    every = [t for f, a in options.items() for t in ([f] if a.flag else [f, _value(a)])]
    joined = [f if a.flag else f"{f}={_value(a)}" for f, a in options.items()]
    return [
        [*words, *positionals, *required],
        [*words, *every, *positionals],
        [*words, *positionals, *joined],
    ]


PLAIN = sorted(n for n, c in REGISTRY.commands.items() if plain.Arguments(c.spec).plain)


def test_most_commands_are_plain():
    assert {"resume", "status", "task list", "task create", "note", "memory get"} <= set(PLAIN)


@pytest.mark.parametrize("name", PLAIN)
def test_plain_namespace_is_argparse_namespace(name):
    for argv in _lines(name):
        ours = plain.parse(REGISTRY, argv)
        assert ours is not None, argv
        assert vars(ours) == vars(REGISTRY.argparser().parse_args(argv)), argv


def test_a_group_with_its_own_handler_parses_plainly():
    argv = ["artifacts", "--task-id", "task_1"]
    assert vars(plain.parse(REGISTRY, argv)) == vars(REGISTRY.argparser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["task", "list", "--help"],
        ["task", "list", "--lim", "5"],
        ["task", "list", "--limit", "-5"],
        ["task", "list", "--limit", "many"],
        ["task", "list", "--status", "sleeping"],
        ["task", "list", "--ready=yes"],
        ["task", "list", "extra"],
        ["task", "list", "--limit"],
        ["task", "list", "--", "x"],
        ["task", "create"],
        ["task", "lst"],
        ["task"],
        ["nosuch"],
        ["note", "task_1"],
        ["project", "focus", "--clear"],
    ],
)
def test_other_lines_are_left_to_argparse(argv):
    assert plain.parse(REGISTRY, argv) is None


def test_a_line_left_to_argparse_still_fails_as_a_usage_error():
    with pytest.raises(UsageError, match="invalid choice"):
        REGISTRY.parse(["task", "list", "--status", "sleeping"])


def _vocabulary(name: str) -> list[str]:
    """Tokens a command line of ``name`` could hold: its options (short, long, abbreviated,
    with ``=``), values good and bad, and stray words."""
    arguments = plain.Arguments(REGISTRY.commands[name].spec)
    tokens = ["-", "--", "-5", "x", "many", "", "--nosuch", *CANDIDATES]
    for flag, argument in arguments.options.items():
        tokens += [flag, flag[:-1], f"{flag}=x"]
        if not argument.flag:
            tokens += [f"{flag}={_value(argument)}", _value(argument)]
        tokens += [str(choice) for choice in argument.choices or ()]
    return tokens


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("name", PLAIN)
def test_whatever_the_plain_parser_accepts_argparse_reads_the_same(name, data):
    rest = data.draw(st.lists(st.sampled_from(_vocabulary(name)), max_size=6))
    argv = [*name.split(), *rest]
    ours = plain.parse(REGISTRY, argv)
    if ours is not None:
        assert vars(ours) == vars(REGISTRY.argparser().parse_args(argv)), argv
