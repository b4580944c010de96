"""`vybe mcp`: the tools an agent needs, served over stdio with the official `mcp` SDK.

Each call opens the store for its own duration (the SDK runs sync tools on worker threads,
and a SQLite connection belongs to the thread that made it). Mutations take an optional
request_id; a replay returns the first result, as on the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from vybe import __version__, clock, config
from vybe.errors import VybeError

T = TypeVar("T")


class Tools:
    """The vybe operations behind the MCP tools, for one agent and one database."""

    def __init__(self, settings: config.Settings) -> None:
        self.settings = settings

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        from vybe.store import Store

        store = Store(self.settings.db_path, self.settings.busy_timeout_ms)
        try:
            return fn(store, *args, **kwargs)
        except VybeError as error:  # the model sees the stable code and the message
            from mcp.server.mcpserver.exceptions import ToolError

            raise ToolError(f"{error.code}: {error.message}") from None
        finally:
            store.close()

    def mutate(self, fn: Callable[..., T], request_id: str | None, **kwargs: Any) -> T:
        return self.call(fn, self.settings.agent, request_id or clock.new_id("req"), **kwargs)

    @property
    def lease(self) -> Any:
        return clock.parse_duration(self.settings.claim_lease)


def build(settings: config.Settings) -> Any:
    """The MCP server with every vybe tool registered."""
    from mcp.server.mcpserver import MCPServer

    from vybe.actions import memory, resume, tasks
    from vybe.store.memory import MemoryQuery
    from vybe.store.tasks import TaskQuery

    tools = Tools(settings)
    server = MCPServer(
        "vybe",
        version=__version__,
        instructions="Durable tasks, memory and resume briefs (vybe).",
    )

    @server.tool()
    def resume_brief(project_dir: str | None = None, peek: bool = True) -> dict:
        """The resume brief: focus task, memory, recent activity. peek=False moves the cursor."""
        if peek:
            return tools.call(resume.peek, settings.agent, project_dir=project_dir)
        return tools.mutate(resume.resume, None, project_dir=project_dir)

    @server.tool()
    def task_create(
        title: str,
        description: str = "",
        priority: int = 0,
        project_id: str | None = None,
        request_id: str | None = None,
    ) -> dict:
        """Create a pending task (higher priority is more urgent)."""
        return tools.mutate(
            tasks.create,
            request_id,
            title=title,
            description=description,
            priority=priority,
            project_id=project_id,
        )

    @server.tool()
    def task_begin(task_id: str, request_id: str | None = None) -> dict:
        """Claim a task, set it in progress and make it this agent's focus."""
        return tools.mutate(tasks.begin, request_id, task_id=task_id, lease=tools.lease)

    @server.tool()
    def task_claim(
        task_id: str | None = None, project_id: str | None = None, request_id: str | None = None
    ) -> dict:
        """Claim the named task, or without task_id the best ready one, under a lease."""
        return tools.mutate(
            tasks.claim, request_id, task_id=task_id, project_id=project_id, lease=tools.lease
        )

    @server.tool()
    def task_done(task_id: str, note: str = "", request_id: str | None = None) -> dict:
        """Complete a task with a note (refused while a task it depends on is open)."""
        return tools.mutate(tasks.done, request_id, task_id=task_id, note=note)

    @server.tool()
    def task_block(
        task_id: str, reason: str, failure: bool = False, request_id: str | None = None
    ) -> dict:
        """Block a task with a reason; failure=True makes resume skip it."""
        return tools.mutate(
            tasks.block, request_id, task_id=task_id, reason=reason, failure=failure
        )

    @server.tool()
    def task_note(
        task_id: str, message: str, kind: str = "progress", request_id: str | None = None
    ) -> dict:
        """Log progress (or kind='reasoning' for intent and approach) on a task."""
        return tools.mutate(tasks.note, request_id, task_id=task_id, message=message, kind=kind)

    @server.tool()
    def task_list(
        status: str | None = None,
        project_id: str | None = None,
        ready: bool = False,
        limit: int = 20,
    ) -> dict:
        """Tasks by priority, then age; ready=True: pending with no open blocker."""
        query = TaskQuery(status=status, project_id=project_id, ready=ready, limit=limit)
        return tools.call(tasks.list_tasks, query)

    @server.tool()
    def remember(
        key: str,
        value: str,
        scope: str = "global",
        scope_id: str | None = None,
        kind: str = "fact",
        pin: bool = False,
        request_id: str | None = None,
    ) -> dict:
        """Store a memory: scope global|project|task|agent, kind fact|directive|lesson."""
        spec = memory.MemoryInput(
            key=key, value=value, scope=scope, scope_id=scope_id, kind=kind, pinned=pin
        )
        return tools.call(
            memory.set_memory, settings.agent, request_id or clock.new_id("req"), spec
        )

    @server.tool()
    def memory_get(key: str, scope: str = "global", scope_id: str | None = None) -> dict:
        """Read one memory entry."""
        return tools.call(memory.get, settings.agent, key=key, scope=scope, scope_id=scope_id)

    @server.tool()
    def memory_list(
        scope: str | None = None,
        scope_id: str | None = None,
        kind: str | None = None,
        limit: int = 50,
    ) -> dict:
        """List live memory entries."""
        query = MemoryQuery(scope=scope, scope_id=scope_id, kind=kind, limit=limit)
        return tools.call(memory.list_memory, settings.agent, query)

    return server


def serve(settings: config.Settings) -> None:
    """Serve over stdio until the client closes the stream (stdout carries JSON-RPC only)."""
    build(settings).run("stdio")
