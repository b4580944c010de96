"""The command reference in docs/cli.md, generated from the declarations.

``python -m vybe.cli.reference`` rewrites the part of docs/cli.md between the BEGIN and END
markers; tests/cli/test_docs.py fails while the committed file differs from what this gives.
"""

from __future__ import annotations

import sys
from pathlib import Path

from vybe.cli.commands import cli_params, every
from vybe.operations import Catalog, Command
from vybe.operations.model import AGENT, MCP, Alias, Operation, Param

BEGIN = "<!-- BEGIN generated command reference: python -m vybe.cli.reference -->"
END = "<!-- END generated command reference -->"
DOC = Path(__file__).resolve().parents[3] / "docs" / "cli.md"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(param: Param) -> str:
    if param.type == "boolean":
        return "flag"
    kind = "one of " + ", ".join(f"`{c}`" for c in param.enum) if param.enum else param.type
    if param.minimum is not None or param.maximum is not None:
        kind += f" {param.minimum}..{param.maximum}"
    return kind


def _flags(param: Param, positional: bool) -> str:
    flags = [param.flag, *param.aliases]
    shown = ", ".join(f"`{f}`" for f in flags)
    if positional or param.positional:
        shown = f"`{param.metavar or param.name.upper()}` or " + shown
    return shown


def _table(params: tuple[Param, ...], positionals: tuple[str, ...], op: Operation) -> list[str]:
    if not params:
        return ["No parameters."]
    rows = ["| parameter | command line | value | default | |", "|---|---|---|---|---|"]
    for p in params:
        plain = p.default is None or p.default is False or p.default == ""
        default = "" if plain else f"`{p.default}`"
        required = "**required**; " if p.required else ""
        left_out = " (not in `vybe chat`)" if AGENT in op.surfaces - p.surfaces else ""
        rows.append(
            f"| `{p.name}` | {_flags(p, p.name in positionals)} | {_cell(_value(p))} "
            f"| {default} | {required}{_cell(p.help)}{left_out} |"
        )
    return rows


def _surfaces(op: Operation) -> str:
    where = []
    if MCP in op.surfaces:
        where.append(f"MCP tool `{op.tool}`")
    if AGENT in op.surfaces:
        where.append("a `vybe chat` tool")
    return ("Also " + " and ".join(where) + ". ") if where else ""


def _writes(op: Operation) -> str:
    if not op.writes:
        return "Reads only."
    text = "Writes: takes a request id."
    if not op.peek:
        return text
    peek = next(p for p in op.params if p.name == op.peek)
    return text + f" With `{peek.flag}` it writes nothing."


def _section(catalog: Catalog, command: Command) -> list[str]:
    op = catalog.target(command)
    lines = [f"### `vybe {command.name}`", "", command.summary, ""]
    if isinstance(command, Alias):
        lines += [f"The older form of [`vybe {op.name}`](#vybe-{op.name.replace(' ', '-')}).", ""]
    else:
        lines += [f"{_writes(op)} {_surfaces(op)}".strip(), ""]
    positionals = command.positionals if isinstance(command, Alias) else ()
    lines += [*_table(cli_params(catalog, command), positionals, op), ""]
    if not isinstance(command, Alias) and op.examples:
        lines += ["```sh", *op.examples, "```", ""]
    return lines


def render() -> str:
    """The reference: every command and alias, grouped by first word, in name order."""
    catalog = every()
    commands: dict[str, Command] = {**catalog.operations, **catalog.aliases}
    lines = [BEGIN, ""]
    for name in sorted(commands):
        lines += _section(catalog, commands[name])
    lines.append(END)
    return "\n".join(lines)


def rewritten(text: str) -> str:
    """``text`` with its generated part replaced by ``render()``."""
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + render() + tail


def main() -> int:
    from vybe import config

    config.write_whole(str(DOC), rewritten(DOC.read_text(encoding="utf-8")), keep_mode=True)
    sys.stdout.write(f"wrote {DOC}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
