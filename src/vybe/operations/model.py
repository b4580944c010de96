"""What an operation is: its parameters, whether it writes, what it calls, what it returns.

A declaration is data; the surfaces are built from it: the argparse parsers and ``vybe
schema`` (vybe.cli), the MCP tools (vybe.integrations.mcp.server), the ``vybe chat`` tools
(vybe.agent) and docs/cli.md. A value from any surface goes through ``Param.accept`` (JSON
values: MCP and the agent) or ``Param.parse`` (command-line text), which apply the same
types, bounds and choices and name the parameter as that surface spells it.
"""

from __future__ import annotations

from vybe.errors import InvalidInput, UsageError, acting

TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    from vybe.errors import VybeError

    # An operation's action: (context, values) -> result; a view reshapes a result for tools.
    Run: TypeAlias = Callable[[Any, dict[str, Any]], dict]
    View: TypeAlias = Callable[[dict, dict[str, Any]], dict]

CLI, MCP, AGENT = "cli", "mcp", "agent"
EVERYWHERE = frozenset((CLI, MCP, AGENT))
# What the agent of `vybe chat` is not offered: its tool list is part of every request, and
# small windows have no room for every operation and argument.
NOT_AGENT = frozenset((CLI, MCP))
CLI_ONLY = frozenset((CLI,))
JSON_TYPES = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "duration": "string",
}


class Param:
    """One parameter, under one name on every surface: ``task_id`` is ``--task-id`` on the
    command line and ``task_id`` in MCP, in the agent's tools and in JSON results.

    ``aliases`` are older command-line spellings still accepted (``--id``); ``positional``
    lets the command line give the value without its flag (``vybe session show ID``);
    ``surfaces`` leaves a parameter off some surfaces (a request id the agent derives)."""

    __slots__ = (
        "aliases",
        "default",
        "enum",
        "help",
        "max_length",
        "maximum",
        "metavar",
        "minimum",
        "name",
        "positional",
        "required",
        "surfaces",
        "type",
    )

    def __init__(
        self,
        name: str,
        type: str = "string",
        help: str = "",
        *,
        default: object = None,
        required: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        enum: tuple[str, ...] | None = None,
        max_length: int | None = None,
        aliases: tuple[str, ...] = (),
        positional: bool = False,
        surfaces: frozenset[str] = EVERYWHERE,
        metavar: str | None = None,
    ) -> None:
        if type not in JSON_TYPES:
            raise ValueError(f"unknown parameter type {type!r}")
        self.name, self.type, self.help = name, type, help
        self.default = False if type == "boolean" and default is None else default
        self.required, self.minimum, self.maximum = required, minimum, maximum
        self.enum, self.max_length = enum, max_length
        self.aliases, self.positional, self.surfaces = aliases, positional, surfaces
        self.metavar = metavar

    def but(self, **changes: object) -> Param:
        """A copy with some fields changed (a shared parameter made required, say)."""
        fields = {slot: getattr(self, slot) for slot in self.__slots__}
        return Param(**{**fields, **changes})

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def json_schema(self) -> dict[str, object]:
        schema: dict[str, object] = {"type": JSON_TYPES[self.type], "description": self.help}
        for key, value in (
            ("enum", list(self.enum) if self.enum else None),
            ("minimum", self.minimum),
            ("maximum", self.maximum),
            ("maxLength", self.max_length),
            ("default", self.default),
        ):
            if value is not None:
                schema[key] = value
        if self.type == "duration":
            schema["pattern"] = "^[0-9]+[smhdw]$"
        return schema

    def parse(self, text: str) -> object:
        """A command-line value: ValueError (argparse's usage error) when it is refused."""
        if self.type == "integer":
            try:
                value: object = int(text)
            except ValueError:
                raise ValueError(f"{text!r} is not an integer") from None
        elif self.type == "number":
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"{text!r} is not a number") from None
        else:
            value = text
        return self._check(value)

    def accept(self, value: object) -> object:
        """A JSON value (MCP, the agent): InvalidInput naming this parameter when refused."""
        expected: dict[str, type | tuple[type, ...]] = {
            "string": str,
            "duration": str,
            "boolean": bool,
            "number": (int, float),
        }
        wanted = expected.get(self.type, int)
        if (isinstance(value, bool) and self.type != "boolean") or not isinstance(value, wanted):
            raise self._refused(f"{self.name} must be {_article(JSON_TYPES[self.type])}")
        try:
            if isinstance(value, str):
                _check_text(value)
            return self._check(value)
        except ValueError as exc:
            raise self._refused(f"{self.name}: {exc}") from None

    def _check(self, value: object) -> object:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError(f"{value!r} is not a finite number")
            low, high = self.minimum, self.maximum
            if (low is not None and value < low) or (high is not None and value > high):
                raise ValueError(f"{value} is outside {_bound(low)}..{_bound(high)}")
        if self.type == "duration" and isinstance(value, str):
            return _duration(value)
        if self.enum is not None and value not in self.enum:
            raise ValueError(f"{value!r} is not one of {', '.join(self.enum)}")
        return value

    def _refused(self, message: str) -> InvalidInput:
        return InvalidInput(
            message,
            context={"field": self.name},
            suggested_action=f"pass {self.name} as {self.describe()}",
        )

    def describe(self) -> str:
        """The accepted values in a few words: ``an integer within 1..1000``."""
        if self.enum:
            return "one of " + ", ".join(self.enum)
        text = _article(JSON_TYPES[self.type])
        if self.type == "duration":
            return "a duration such as 90s, 15m, 24h, 7d or 2w"
        if self.minimum is not None or self.maximum is not None:
            text += f" within {_bound(self.minimum)}..{_bound(self.maximum)}"
        return text


def _article(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _bound(value: float | None) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def _check_text(value: str) -> None:
    """Text a store can hold: a lone surrogate (JSON's "\\ud800") cannot be encoded.
    Lengths are the actions' to check (``max_length`` tells clients the limit)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("is not valid UTF-8 text (it holds a lone surrogate)") from None


def _duration(text: str) -> object:
    from vybe import clock

    return clock.parse_duration(text)


# The command line's shapes of a result (``--format``, ``--jsonl``): never passed to a run.
OUTPUT_PARAMS = frozenset(("format", "jsonl"))
JSONL = Param(
    "jsonl",
    "boolean",
    "one JSON object per line: each row, then the envelope without them (counts, cursor)",
    surfaces=frozenset((CLI,)),
)


def _resolve(function: Any) -> Any:
    """A function, or the one a "module:function" string names (imported when called)."""
    if not isinstance(function, str):
        return function
    module, _, attr = function.partition(":")
    return getattr(__import__(module, fromlist=[attr]), attr)


class Operation:
    """One operation: ``name`` is its command line (``task create``) and, with ``_`` for the
    space, its tool name; ``run(ctx, values)`` calls the action with every parameter's value.

    ``writes``: it changes the store, so it takes a request id (``peek``: a boolean parameter
    that makes it read-only). ``result``: the top-level fields of its result and their JSON
    types. ``view(result, values)``: the result as tools return it, where the whole is too
    large for a model (the brief). ``destructive``: it deletes or overwrites; ``idempotent``:
    calling it twice with the same arguments changes nothing more. ``finds``: the words an
    agent types when it looks for the tool ("save a fact"), beyond its name and summary, for
    a client's tool search (Claude Code's searchHint). ``text(result)``: the result as a
    person reads it, for the command line's ``--format text`` (``FORMAT``), a function or
    "module:function" imported only when it is asked for. ``listing``: the result's field
    that is its list of rows; the command line then takes ``--jsonl`` (one row per line,
    then the rest of the envelope)."""

    __slots__ = (
        "destructive",
        "examples",
        "finds",
        "idempotent",
        "listing",
        "name",
        "params",
        "peek",
        "result",
        "run",
        "summary",
        "surfaces",
        "text",
        "tool",
        "view",
        "writes",
    )

    def __init__(
        self,
        name: str,
        summary: str,
        run: Run | str,
        *,
        params: tuple[Param, ...] = (),
        writes: bool = False,
        peek: str | None = None,
        result: dict[str, str] | None = None,
        examples: tuple[str, ...] = (),
        surfaces: frozenset[str] = NOT_AGENT,
        tool: str | None = None,
        destructive: bool = False,
        idempotent: bool = False,
        view: View | None = None,
        finds: str = "",
        text: Callable[[dict], str] | str | None = None,
        listing: str | None = None,
    ) -> None:
        self.name, self.summary, self.run, self.finds = name, summary, run, finds
        self.text, self.listing = text, listing
        if listing is not None:
            params = (*params, JSONL)
        self.params, self.writes, self.peek = params, writes, peek
        self.result, self.examples, self.surfaces = result or {}, examples, surfaces
        self.tool = tool or name.replace(" ", "_").replace("-", "_")
        self.destructive, self.idempotent, self.view = destructive, idempotent, view

    def on(self, surface: str) -> tuple[Param, ...]:
        """The parameters this surface offers."""
        return tuple(p for p in self.params if surface in p.surfaces)

    def arguments(self, surface: str) -> tuple[Param, ...]:
        """A tool's arguments: the parameters, and request_id when it writes (on MCP; the
        agent's come from its call ids, the CLI's from a global flag)."""
        extra = (REQUEST_ID,) if self.writes and surface == MCP else ()
        return (*self.on(surface), *extra)

    def input_schema(self, surface: str) -> dict[str, object]:
        """The JSON schema of a tool's arguments."""
        arguments = self.arguments(surface)
        return {
            "type": "object",
            "properties": {p.name: p.json_schema() for p in arguments},
            "required": [p.name for p in arguments if p.required],
            "additionalProperties": False,
        }

    def output_schema(self) -> dict[str, object]:
        """The result's top-level fields (each may be null); other fields may follow."""
        fields = {name: {"type": [kind, "null"]} for name, kind in self.result.items()}
        return {"type": "object", "properties": fields, "additionalProperties": True}

    def shown(self, result: dict, values: dict[str, object]) -> dict:
        """The result as a tool returns it: its view, when it has one."""
        if self.view is None:
            return result
        return self.view(result, {**{p.name: p.default for p in self.params}, **values})

    def writes_with(self, values: dict[str, object]) -> bool:
        return self.writes and not (self.peek and values.get(self.peek))

    def as_text(self, result: dict) -> str:
        """The result as a person reads it (``--format text``)."""
        render = _resolve(self.text) if self.text is not None else None
        if render is None:
            raise ValueError(f"{self.name} has no text format")
        return render(result)

    def call(self, ctx: Any, values: dict[str, Any]) -> dict:
        """Run it: every declared parameter has a value (its default when not given)."""
        run = _resolve(self.run)
        # How the command line prints the result is not the action's to know.
        full = {p.name: p.default for p in self.params if p.name not in OUTPUT_PARAMS}
        for p in self.params:
            if p.type == "duration" and isinstance(p.default, str):
                full[p.name] = _duration(p.default)
        full.update((k, v) for k, v in values.items() if k not in OUTPUT_PARAMS)
        session = full.get("session_id")
        if isinstance(session, str) and session:
            # a session as its agent shows it (a bare UUID) is the record's on every surface
            from vybe.actions.sessions import canonical

            full["session_id"] = canonical(ctx.store, session)
        return run(ctx, full)

    def accept(self, arguments: dict[str, object], surface: str) -> dict[str, object]:
        """JSON arguments checked against the declaration: unknown, missing or bad ones are
        INVALID_INPUT naming the argument; null stands for an optional argument left out."""
        params = {p.name: p for p in self.arguments(surface)}
        unknown = sorted(set(arguments) - set(params))
        if unknown:
            raise InvalidInput(
                f"{self.tool} takes no argument {unknown[0]!r}",
                context={"field": unknown[0], "accepted": sorted(params)},
                suggested_action="pass only the arguments of the tool's input schema",
            )
        values: dict[str, object] = {}
        for name, param in params.items():
            value = arguments.get(name)
            if value is None:
                if param.required:
                    raise param._refused(f"{name} is required")
                continue
            values[name] = param.accept(value)
        return values


REQUEST_ID = Param(
    "request_id",
    help="idempotency key: a retry with the same one returns the first result",
    max_length=256,
    surfaces=frozenset((MCP,)),
)


class Alias:
    """An older command line kept working (``vybe done TASK_ID``): ``target``'s parameters,
    ``positionals`` of them taken by position; ``extra`` parameters of its own that
    ``convert`` turns into the target's ``replaces`` (``remember "key=value"``)."""

    __slots__ = ("convert", "extra", "name", "positionals", "replaces", "summary", "target")

    def __init__(
        self,
        name: str,
        target: str,
        summary: str,
        *,
        positionals: tuple[str, ...] = (),
        extra: tuple[Param, ...] = (),
        convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        replaces: tuple[str, ...] = (),
    ) -> None:
        self.name, self.target, self.summary = name, target, summary
        self.positionals, self.extra, self.convert = positionals, extra, convert
        self.replaces = replaces


class Context:
    """What an operation runs with outside the CLI (MCP, the agent): an open store, who is
    acting, the request id of this call, and the settings (loaded when first needed)."""

    def __init__(
        self,
        store: Any,
        agent: str | None,
        request_id: str,
        surface: str,
        settings: Any = None,
    ) -> None:
        self.store, self._agent, self.request_id = store, agent, request_id
        self.surface, self._settings = surface, settings

    @property
    def agent(self) -> str:
        """Who acts: AGENT_REQUIRED when no agent is named."""
        return acting(self._agent)

    @property
    def named(self) -> str | None:
        """The agent named, or None: for a read that narrows to an agent only when one is."""
        return self._agent

    @property
    def settings(self) -> Any:
        if self._settings is None:
            from vybe import config

            self._settings = config.load(self._agent, None)
        return self._settings


def for_tools(error: VybeError) -> VybeError:
    """A refusal as a tool reports it: tools have no command line, so a usage error (two
    arguments that exclude each other) is bad input."""
    if isinstance(error, UsageError):
        return InvalidInput(error.message, context=error.context)
    return error


class Passed:
    """A run that is its action: the ``context`` (store, agent, request id) first, then each
    declared parameter by its name. The parameters are declared once, in the Operation (a
    test holds every such action's keywords to them)."""

    __slots__ = ("action", "context")

    def __init__(self, action: Callable[..., dict], *context: str) -> None:
        self.action, self.context = action, context

    def __call__(self, ctx: Context, values: dict[str, Any]) -> dict:
        return self.action(*(getattr(ctx, name) for name in self.context), **values)


def mutation(action: Callable[..., dict]) -> Passed:
    """``action(store, agent, request_id, **values)``: a change made as the agent, once."""
    return Passed(action, "store", "agent", "request_id")


def as_agent(action: Callable[..., dict]) -> Passed:
    """``action(store, agent, **values)``: a read of what the agent sees."""
    return Passed(action, "store", "agent")


def reading(action: Callable[..., dict]) -> Passed:
    """``action(store, **values)``: a read of the store."""
    return Passed(action, "store")
