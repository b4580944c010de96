"""Every command is documented, in the style of sqlite-utils' test_docs: help and an example
for each operation, help for each parameter, every example a valid command line, every
command in docs/cli.md, and the generated reference there up to date."""

from __future__ import annotations

import shlex

import pytest

from vybe.cli import parsers, reference
from vybe.cli.commands import cli_params, every
from vybe.cli.main import split_globals
from vybe.cli.parsers import find

CATALOG = every()
OPERATIONS = sorted(CATALOG.operations)
COMMANDS = sorted([*CATALOG.operations, *CATALOG.aliases])
DOC = reference.DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", OPERATIONS)
def test_every_operation_has_a_summary_and_an_example(name):
    op = CATALOG.operations[name]
    assert op.summary.strip().endswith(".")
    assert op.examples, f"{name} has no example"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_parameter_has_help(name):
    command = {**CATALOG.operations, **CATALOG.aliases}[name]
    for param in cli_params(CATALOG, command):
        assert param.help.strip(), f"{name}: {param.name} has no help"


def _command_line(example: str) -> list[str]:
    words = shlex.split(example.split("| ")[-1])
    assert words[0] == "vybe", example
    return split_globals(words[1:])[1]


EXAMPLES = [(n, e) for n in OPERATIONS for e in CATALOG.operations[n].examples]


@pytest.mark.parametrize(("name", "example"), EXAMPLES)
def test_every_example_is_a_valid_command_line(name, example):
    catalog, command, tokens = find(_command_line(example))
    target = catalog.target(command) if command.name in catalog.aliases else command
    assert target.name == name, example
    parsers.parse(catalog, command, tokens)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_is_in_the_reference(name):
    assert f"### `vybe {name}`" in DOC


def test_the_reference_is_up_to_date():
    assert reference.rewritten(DOC) == DOC, "run: python -m vybe.cli.reference"


def test_the_reference_is_generated_between_its_markers():
    assert DOC.count(reference.BEGIN) == DOC.count(reference.END) == 1


@pytest.mark.parametrize("name", [n for n in OPERATIONS if CATALOG.operations[n].peek])
def test_a_writes_line_names_the_flag_the_command_line_takes(name):
    op = CATALOG.operations[name]
    flags = {p.flag for p in cli_params(CATALOG, op)}
    said = reference._writes(op).split("`")[1]
    assert said in flags, f"{name}: the reference names {said}, the command takes {flags}"
