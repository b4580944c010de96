"""The SDK's low-level MCP server with vybe's tools, prompts and resources, built from the
declarations. Imported only once ``vybe mcp`` has answered ``initialize`` (see mcp.server);
the lists are the SDK's models of the dicts mcp.server answers with before that.
"""

from __future__ import annotations

import sys
import threading
from functools import partial
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from vybe import __version__, clock
from vybe.errors import InvalidInput, VybeError
from vybe.integrations.mcp.server import (
    BRIEF_URI,
    INSTRUCTIONS,
    PROMPT,
    RESOURCE,
    TASK_URI,
    TEMPLATE,
    error_result,
    tool_json,
)
from vybe.operations import catalog
from vybe.operations.model import MCP, Context, Operation, for_tools


def tool(op: Operation) -> types.Tool:
    return types.Tool.model_validate(tool_json(op))


class Tools:
    """The MCP operations for one agent and one store; ``call`` never raises."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.operations = {op.tool: op for op in catalog().on(MCP)}
        self._local = threading.local()
        self._opened: list[Any] = []

    def __enter__(self) -> Tools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the store of every thread that opened one (a server's connection is not
        left for the garbage collector)."""
        while self._opened:
            self._opened.pop().close()

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A CallToolResult as a dict: structured content, or vybe's error envelope."""
        op = self.operations.get(name)
        try:
            if op is None:
                raise InvalidInput(
                    f"no tool named {name!r}",
                    context={"tool": name, "tools": sorted(self.operations)},
                    suggested_action="list the tools and call one of them",
                )
            return self._run(op, dict(arguments))
        except VybeError as error:
            return error_result(for_tools(error))
        except Exception as exc:  # a bug: the client still gets an answer with a code
            import traceback

            traceback.print_exc(file=sys.stderr)
            return error_result(VybeError(f"internal error: {type(exc).__name__}: {exc}"))

    def _run(self, op: Operation, arguments: dict[str, Any]) -> dict[str, Any]:
        values = op.accept(arguments, MCP)
        request_id = values.pop("request_id", None)  # accepted as a string, or left out
        data = self.run(op, values, str(request_id) if request_id is not None else None)
        return {
            "content": [{"type": "text", "text": dumps(data)}],
            "structuredContent": data,
            "isError": False,
        }

    def run(
        self, op: Operation, values: dict[str, Any], request_id: str | None = None
    ) -> dict[str, Any]:
        """The operation's result as tools return it (its view, when it has one)."""
        store = self._store(create=op.writes_with(values))
        ctx = Context(
            store, self.settings.agent, request_id or clock.new_id("req"), MCP, self.settings
        )
        return op.shown(op.call(ctx, values), values)

    def _store(self, *, create: bool) -> Any:
        """This worker thread's store, opened by its first call (a SQLite connection belongs
        to the thread that made it; the SDK's worker threads are a bounded, reused pool).
        A read of a store that does not exist yet opens nothing, as on the command line."""
        store = getattr(self._local, "store", None)
        if store is None:
            from vybe.store import open_store

            store = open_store(self.settings.location, self.settings.busy_timeout_ms, create=create)
            self._local.store = store
            self._opened.append(store)
        return store


def dumps(data: Any) -> str:
    import json

    return json.dumps(data, ensure_ascii=False, default=str)


def _brief(tools: Tools, task_id: str | None = None) -> dict[str, Any]:
    return tools.run(tools.operations["brief"], {"task_id": task_id})


def build(settings: Any) -> Server:
    """The server, every handler answering from the declarations."""
    tools = Tools(settings)
    listed = [tool(op) for op in tools.operations.values()]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        run = partial(tools.call, params.name, params.arguments or {})
        return types.CallToolResult.model_validate(await anyio.to_thread.run_sync(run))

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt.model_validate(PROMPT)])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != "resume":
            raise _mcp_error(f"no prompt named {params.name!r}")
        task_id = (params.arguments or {}).get("task_id") or None
        brief = await anyio.to_thread.run_sync(partial(_checked_brief, tools, task_id))
        return types.GetPromptResult(
            description="vybe's resume brief",
            messages=[
                types.PromptMessage(
                    role="user", content=types.TextContent(type="text", text=brief["prompt"])
                )
            ],
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource.model_validate(RESOURCE)])

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        templates = [types.ResourceTemplate.model_validate(TEMPLATE)]
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        text, mime = await anyio.to_thread.run_sync(partial(_read, tools, uri))
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    return Server(
        "vybe",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )


def _mcp_error(message: str) -> Exception:
    from mcp.shared.exceptions import MCPError

    return MCPError(code=-32602, message=message)


def _checked_brief(tools: Tools, task_id: str | None) -> dict[str, Any]:
    """The brief, a vybe error becoming the protocol's (prompts have no error result)."""
    try:
        return _brief(tools, task_id)
    except VybeError as error:
        raise _mcp_error(f"{error.code}: {error.message}") from None


def _read(tools: Tools, uri: str) -> tuple[str, str]:
    prefix = TASK_URI.split("{")[0]
    try:
        if uri == BRIEF_URI:
            return _brief(tools)["prompt"], "text/markdown"
        if uri.startswith(prefix) and len(uri) > len(prefix):
            task = tools.run(tools.operations["task_get"], {"task_id": uri[len(prefix) :]})
            return dumps(task), "application/json"
    except VybeError as error:
        raise _mcp_error(f"{error.code}: {error.message}") from None
    raise _mcp_error(f"NOT_FOUND: no resource {uri!r}")
