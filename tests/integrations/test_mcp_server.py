"""`vybe mcp` over stdio, driven by the official SDK's client as Claude Code or Codex would."""

from __future__ import annotations

import asyncio
import json

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import VYBE
from vybe import __version__

TOOLS = {
    "resume_brief",
    "task_create",
    "task_begin",
    "task_claim",
    "task_done",
    "task_block",
    "task_note",
    "task_list",
    "remember",
    "memory_get",
    "memory_list",
}


def _data(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def _session_run(vybe, body, initialized=None):
    params = StdioServerParameters(command=VYBE, args=["mcp", "--agent", "mcp-agent"], env=vybe.env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        started = await session.initialize()
        if initialized is not None:
            initialized.append(started)
        return await body(session)


def test_the_server_names_itself_with_vybes_version(vybe):
    initialized: list = []

    async def body(session):
        return None

    asyncio.run(_session_run(vybe, body, initialized))
    assert (initialized[0].server_info.name, initialized[0].server_info.version) == (
        "vybe",
        __version__,
    )


def test_the_sdk_client_lists_every_vybe_tool(vybe):
    async def body(session):
        return {t.name for t in (await session.list_tools()).tools}

    assert asyncio.run(_session_run(vybe, body)) >= TOOLS


def test_a_task_lifecycle_and_memory_over_mcp(vybe):
    async def body(session):
        created = _data(await session.call_tool("task_create", {"title": "Ship it"}))
        task_id = created["task"]["id"]
        _data(await session.call_tool("task_begin", {"task_id": task_id}))
        _data(await session.call_tool("task_note", {"task_id": task_id, "message": "half"}))
        brief = _data(await session.call_tool("resume_brief", {}))
        _data(await session.call_tool("remember", {"key": "db", "value": "postgres 16"}))
        got = _data(await session.call_tool("memory_get", {"key": "db"}))
        listed = _data(await session.call_tool("memory_list", {}))
        _data(await session.call_tool("task_done", {"task_id": task_id, "note": "shipped"}))
        tasks = _data(await session.call_tool("task_list", {"status": "completed"}))
        missing = await session.call_tool("task_done", {"task_id": "task_0_nope"})
        return task_id, brief, got, listed, tasks, missing

    task_id, brief, got, listed, tasks, missing = asyncio.run(_session_run(vybe, body))
    assert brief["brief"]["task"]["id"] == task_id
    assert got["memory"]["value"] == "postgres 16"
    assert listed["count"] == 1
    assert [t["id"] for t in tasks["tasks"]] == [task_id]
    assert missing.is_error and "NOT_FOUND" in missing.content[0].text
    events = vybe.ok("events", "--all", "--asc")["events"]
    assert {e["agent_name"] for e in events} == {"mcp-agent"}
