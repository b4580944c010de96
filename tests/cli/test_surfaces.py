"""The CLI, the MCP tools and the agent's tools of every operation agree with its declaration,
and so with each other: names, defaults, bounds, choices; one naming convention throughout."""

from __future__ import annotations

import argparse

import pytest

from vybe.agent.tasks import specs
from vybe.cli import parsers
from vybe.cli.commands import cli_params, every
from vybe.errors import UsageError
from vybe.operations.common import LIMIT
from vybe.operations.model import AGENT, CLI, MCP, OUTPUT_PARAMS

CATALOG = every()
COMMANDS = {**CATALOG.operations, **CATALOG.aliases}
TOOLS = [op for op in CATALOG.operations.values() if MCP in op.surfaces]


def _actions(name: str) -> dict[str, argparse.Action]:
    parser = parsers.build(CATALOG, COMMANDS[name])
    return {a.dest: a for a in parser._actions if a.option_strings and a.dest != "help"}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_cli_parser_is_the_declaration(name):
    actions = _actions(name)
    command = COMMANDS[name]
    params = cli_params(CATALOG, command)
    by_position = getattr(command, "positionals", ())
    assert set(actions) == {p.name for p in params}
    for param in params:
        action = actions[param.name]
        assert action.option_strings == [param.flag, *param.aliases]
        assert action.default == param.default
        positional = param.positional or param.name in by_position
        assert action.required == (param.required and not positional)


def _parse(name: str, flag: str, value: object) -> object:
    command = COMMANDS[name]
    required = []
    for param in cli_params(CATALOG, command):
        if param.required and param.flag != flag:
            required += [param.flag, (param.enum or ["x"])[0]]
    return parsers.parse(CATALOG, command, [*required, flag, str(value)])


BOUNDED = [
    (name, param)
    for name in sorted(CATALOG.operations)
    for param in cli_params(CATALOG, COMMANDS[name])
    if param.type == "integer"
]


@pytest.mark.parametrize(("name", "param"), BOUNDED, ids=[f"{n}:{p.name}" for n, p in BOUNDED])
def test_the_cli_takes_an_integer_within_its_bounds_only(name, param):
    assert param.minimum is not None and param.maximum is not None
    for inside in (param.minimum, param.maximum):
        assert _parse(name, param.flag, inside)[param.name] == inside
    for outside in (param.minimum - 1, param.maximum + 1, "x"):
        with pytest.raises(UsageError):
            _parse(name, param.flag, outside)


@pytest.mark.parametrize("op", TOOLS, ids=[op.tool for op in TOOLS])
def test_the_mcp_tool_is_the_declaration(op):
    from vybe.integrations.mcp.tools import tool  # the MCP SDK: only where it is used

    schema = tool(op).input_schema
    arguments = op.arguments(MCP)
    assert list(schema["properties"]) == [p.name for p in arguments]
    assert schema["required"] == [p.name for p in arguments if p.required]
    for param in arguments:
        listed = schema["properties"][param.name]
        assert listed.get("default") == param.default
        assert (listed.get("minimum"), listed.get("maximum")) == (param.minimum, param.maximum)
        assert listed.get("enum") == (list(param.enum) if param.enum else None)
        assert listed["description"] == param.help


def test_the_agents_tools_are_the_declarations():
    offered = {spec.name: spec for spec in specs()}
    declared = {op.tool: op for op in CATALOG.operations.values() if AGENT in op.surfaces}
    assert set(offered) == set(declared)
    for name, spec in offered.items():
        assert spec.parameters == declared[name].input_schema(AGENT)
        assert "request_id" not in spec.parameters["properties"]


@pytest.mark.parametrize("op", TOOLS, ids=[op.tool for op in TOOLS])
def test_a_parameter_on_several_surfaces_is_the_same_on_each(op):
    on = {surface: {p.name: p for p in op.on(surface)} for surface in (CLI, MCP, AGENT)}
    for param in op.params:
        seen = [on[s][param.name] for s in on if param.name in on[s]]
        assert all(p is param for p in seen)
    cli = {p.name for p in op.on(CLI)} - OUTPUT_PARAMS  # the command line's shapes only
    assert {p.name for p in op.on(MCP)} == cli
    assert {p.name for p in op.on(AGENT)} <= cli


def test_every_list_limit_has_one_default_and_one_bound():
    for name, command in COMMANDS.items():
        for param in cli_params(CATALOG, command):
            if param.name == "limit":
                found = (param.default, param.minimum, param.maximum)
                assert found == (LIMIT.default, LIMIT.minimum, LIMIT.maximum), name


def test_an_entity_is_named_by_its_kind_everywhere():
    """task_id, project_id, session_id: never a bare id (the seed's --id is an alias)."""
    for name, command in COMMANDS.items():
        for param in cli_params(CATALOG, command):
            assert param.name != "id", name
            if param.name.endswith("_id"):
                assert param.flag == "--" + param.name.replace("_", "-"), name


def test_no_short_flag_means_two_things():
    meaning: dict[str, str] = {"-a": "agent", "-h": "help"}
    for name, command in COMMANDS.items():
        for param in cli_params(CATALOG, command):
            for flag in param.aliases:
                if not flag.startswith("--"):
                    assert meaning.setdefault(flag, param.name) == param.name, (name, flag)


def test_an_operation_that_is_its_action_declares_exactly_the_keywords_the_action_takes():
    """mutation / as_agent / reading pass each declared parameter by its name: a parameter
    the action does not take, or a keyword it needs that is not declared, fails here, not
    at a call."""
    import inspect

    from vybe.operations.model import Passed

    passed = [op for op in every().operations.values() if isinstance(op.run, Passed)]
    assert len(passed) >= 10
    for op in passed:
        taken = list(inspect.signature(op.run.action).parameters)
        assert taken[: len(op.run.context)] == list(op.run.context), op.name
        declared = sorted(p.name for p in op.params if p.name not in OUTPUT_PARAMS)
        assert sorted(taken[len(op.run.context) :]) == declared, op.name
