"""`vybe mcp` over stdio, driven by the official SDK's client as Claude Code or Codex would:
tools, errors, bounds, the brief as a prompt and as resources, structured results."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
from concurrent.futures import Future
from contextlib import AsyncExitStack

import pytest

from tests.conftest import VYBE, Vybe
from vybe import __version__
from vybe.actions import tasks
from vybe.integrations.mcp import server as mcp_server
from vybe.operations import catalog
from vybe.operations.model import MCP
from vybe.store import SqliteStore

AGENT_FACING = {
    "resume_brief",
    "task_create",
    "task_get",
    "task_list",
    "task_begin",
    "task_claim",
    "task_heartbeat",
    "task_assign",
    "task_depend",
    "task_undepend",
    "task_done",
    "task_block",
    "task_note",
    "events",
    "push",
    "artifacts_list",
    "artifacts_add",
    "project_create",
    "project_list",
    "memory_set",
    "memory_get",
    "memory_list",
    "memory_delete",
    "memory_pin",
    "search",
}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}


def _data(result) -> dict:
    assert not result.is_error, result.content
    return result.structured_content


def _error(result) -> dict:
    assert result.is_error, result.content
    envelope = result.structured_content
    assert set(envelope) == {"error_code", "error", "error_context", "suggested_action"}
    assert result.content[0].text.startswith(envelope["error_code"] + ": ")
    return envelope


class Served:
    """One `vybe mcp` process and an SDK client session to it, shared by this module's tests
    (each start is a Python importing the SDK: seconds). The session lives in one task on its
    own event loop (anyio wants it entered and left there); ``run(body)`` hands that task
    ``body`` and waits for what ``body(session)`` returns."""

    def __init__(self, vybe: Vybe, errlog) -> None:
        self.vybe, self.errlog = vybe, errlog
        self.loop = asyncio.new_event_loop()
        self.bodies: asyncio.Queue = asyncio.Queue()
        self.started = threading.Event()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._serve(),))
        self.thread.start()
        assert self.started.wait(120)

    async def _serve(self) -> None:
        # The SDK is imported where it is used: at module level every xdist worker would pay
        # its ~1.7 s import while collecting, whichever files it then runs.
        from mcp import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=VYBE, args=["mcp", "--agent", "mcp-agent"], env=self.vybe.env
        )
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(stdio_client(params, errlog=self.errlog))
            session = await stack.enter_async_context(ClientSession(read, write))
            self.initialized = await session.initialize()
            self.started.set()
            while (item := await self.bodies.get()) is not None:
                body, future = item
                try:
                    future.set_result(await body(session))
                except Exception as exc:
                    future.set_exception(exc)

    def run(self, body):
        future: Future = Future()
        self.loop.call_soon_threadsafe(self.bodies.put_nowait, (body, future))
        return future.result(timeout=120)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.bodies.put_nowait, None)
        self.thread.join(60)
        self.loop.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("mcp")
    vybe = Vybe(home)
    vybe.ok("init")
    with (home / "stderr.txt").open("w") as errlog:
        server = Served(vybe, errlog)
        yield server
        server.close()


def test_the_early_initialize_answer_is_the_sdks_own(served):
    """The answer sent before the SDK is imported equals the one the SDK then gives (the
    server logs any difference on stderr), with vybe's name and version."""

    async def body(session):
        return (await session.list_tools()).tools

    assert served.run(body)
    info = served.initialized.server_info
    assert (info.name, info.version) == ("vybe", __version__)
    assert "otherwise" not in (served.vybe.home / "stderr.txt").read_text()


def test_the_handshake_versions_are_the_sdks():
    import mcp_types

    assert mcp_server.HANDSHAKE_VERSIONS == mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS
    assert mcp_server.HANDSHAKE_VERSIONS[-1] == mcp_types.version.LATEST_HANDSHAKE_VERSION


# Claude Code 2.1.332's first request (the 2026-07-28 protocol: no handshake), as it sent it.
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"},
    "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": True}},
}
DISCOVER = {
    "jsonrpc": "2.0",
    "id": "server-discover-probe-1",
    "method": "server/discover",
    "params": {"_meta": ENVELOPE},
}


def never_importing(vybe, tmp_path) -> dict[str, str]:
    """vybe's environment with an `mcp` package that never finishes importing standing in
    for the SDK: whatever is answered, vybe answered before the SDK."""
    fake = tmp_path / "fake" / "mcp"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("import time\ntime.sleep(60)\n")
    return {**vybe.env, "PYTHONPATH": str(fake.parent)}


def first_answer(vybe, tmp_path, request: dict) -> tuple[dict, float]:
    """What `vybe mcp` answers to its first request before the SDK is imported, and how long
    it took."""
    env = never_importing(vybe, tmp_path)
    with subprocess.Popen(
        [VYBE, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    ) as proc:
        try:
            started = time.perf_counter()
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
            answer = json.loads(proc.stdout.readline())
            return answer, time.perf_counter() - started
        finally:
            proc.kill()


def test_initialize_is_answered_before_the_sdk_is_imported(vybe, tmp_path):
    answer, took = first_answer(vybe, tmp_path, INITIALIZE)
    assert answer["id"] == 0
    assert answer["result"]["serverInfo"]["name"] == "vybe"
    assert answer["result"]["protocolVersion"] == "2025-11-25"
    assert took < 30


def test_claude_code_2_1_332s_server_discover_is_answered_before_the_sdk_is_imported(
    vybe, tmp_path
):
    answer, took = first_answer(vybe, tmp_path, DISCOVER)
    assert answer["id"] == "server-discover-probe-1"
    assert answer["result"]["supportedVersions"] == ["2026-07-28"]
    assert answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "vybe"
    assert took < 30


def test_the_early_discover_answer_is_the_sdks_own_and_its_tools_follow(vybe):
    """The real SDK behind it: it answers the same discover (no difference logged), and the
    tools a modern client lists next come."""
    tools_list = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": ENVELOPE}}
    sent = "".join(json.dumps(m) + "\n" for m in (DISCOVER, tools_list)).encode()
    with subprocess.Popen(
        [VYBE, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=vybe.env,
    ) as proc:
        proc.stdin.write(sent)
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
        proc.stdin.close()
        assert proc.wait(60) == 0
        assert b"otherwise" not in proc.stderr.read()
    assert [a["id"] for a in answers] == ["server-discover-probe-1", 2]
    assert {t["name"] for t in answers[1]["result"]["tools"]} >= set(mcp_server.CORE)


class Wired:
    """A `vybe mcp` process driven line by line, as a client writes JSON-RPC to it."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [VYBE, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )

    def send(self, *messages: dict) -> None:
        self.write(*map(json.dumps, messages))

    def write(self, *lines: str) -> None:
        self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
        self.proc.stdin.flush()

    def answers(self, count: int) -> list[dict]:
        return [json.loads(self.proc.stdout.readline()) for _ in range(count)]

    def close(self) -> tuple[list[dict], str]:
        """End the input; what else the server wrote until it exited, and its stderr."""
        self.proc.stdin.close()
        rest = [json.loads(line) for line in self.proc.stdout]
        assert self.proc.wait(60) == 0
        with self.proc:  # its pipes closed
            return rest, self.proc.stderr.read().decode()

    def kill(self) -> None:
        with self.proc:  # its pipes closed, then waited for
            self.proc.kill()


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(request_id: object, method: str, params: object = None) -> dict:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    return message if params is None else {**message, "params": params}


LIST_REQUESTS = [request(n, method) for n, method in enumerate(mcp_server.LISTS, 1)]


def sdk_lists(env: dict[str, str], version: str) -> list[dict]:
    """The SDK's own answers to the lists: asked once it answered a ping (so it reads)."""
    wired = Wired(env)
    handshake = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": version}}
    wired.send(handshake, INITIALIZED, request("ping", "ping"))
    assert [a["id"] for a in wired.answers(2)] == [0, "ping"]
    wired.send(*LIST_REQUESTS)
    answers = wired.answers(len(LIST_REQUESTS))
    rest, stderr = wired.close()
    assert rest == [] and "otherwise" not in stderr, stderr
    return answers


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25"])
def test_the_lists_answered_before_the_sdk_is_imported_are_the_sdks_own_answers(
    vybe, tmp_path, version
):
    """tools/list, prompts/list and resources/list sent right after initialize are answered
    before the SDK is imported (it never is here), with the very JSON the SDK answers."""
    wired = Wired(never_importing(vybe, tmp_path))
    try:
        handshake = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": version}}
        wired.send(handshake, INITIALIZED, *LIST_REQUESTS)
        early = wired.answers(1 + len(LIST_REQUESTS))[1:]
    finally:
        wired.kill()
    assert early == sdk_lists(vybe.env, version)
    assert {t["name"] for t in early[0]["result"]["tools"]} >= AGENT_FACING


def test_a_list_with_a_cursor_or_params_or_another_method_is_left_to_the_sdk(vybe, tmp_path):
    """Only a plain list request is answered early: the ones before the last (plain) one,
    had vybe answered them, would have been answered first."""
    wired = Wired(never_importing(vybe, tmp_path))
    try:
        wired.send(
            INITIALIZE,
            INITIALIZED,
            request(1, "tools/list", {"cursor": "next"}),
            request(2, "tools/list", {"_meta": {"progressToken": 7}}),
            request(3, "resources/templates/list"),
            request(4, "vybe/unknown"),
            request(True, "tools/list"),
            {"id": 5, "method": "tools/list"},
            request(6, "prompts/list"),
        )
        assert [a["id"] for a in wired.answers(2)] == [0, 6]
    finally:
        wired.kill()


# A tools/call whose text holds a lone surrogate: vybe refuses it as soon as it reads it.
REFUSED = json.dumps(
    request(9, "tools/call", {"name": "task_create", "arguments": {"title": "\\ud800"}})
).replace("\\\\ud800", "\\ud800")


def test_after_server_discover_the_lists_are_left_to_the_sdk(vybe, tmp_path):
    """The modern protocol's lists are no handshake's: the SDK answers them."""
    wired = Wired(never_importing(vybe, tmp_path))
    try:
        wired.send(
            DISCOVER, request(1, "tools/list", {"_meta": ENVELOPE}), request(2, "tools/list")
        )
        wired.write(REFUSED)
        assert [a["id"] for a in wired.answers(2)] == ["server-discover-probe-1", 9]
    finally:
        wired.kill()


def test_every_request_sent_during_the_import_is_answered_exactly_once_and_calls_work(vybe):
    """The client's whole start-up written at once, a tool call among the lists: each id is
    answered once (the SDK's duplicates of the early answers swallowed, equal to them), and
    the call ran."""
    vybe.ok("init")
    wired = Wired(vybe.env)
    call = request(4, "tools/call", {"name": "task_create", "arguments": {"title": "early"}})
    wired.send(INITIALIZE, INITIALIZED, *LIST_REQUESTS, call, request(5, "tools/list"))
    answers = wired.answers(6)
    rest, stderr = wired.close()
    assert sorted(a["id"] for a in answers + rest) == [0, 1, 2, 3, 4, 5]
    assert "otherwise" not in stderr, stderr
    created = {a["id"]: a for a in answers}[4]["result"]
    assert created["isError"] is False
    assert created["structuredContent"]["task"]["title"] == "early"
    assert [t["title"] for t in vybe.ok("task", "list")["tasks"]] == ["early"]


def test_the_wire_hands_the_sdk_every_line_in_order_and_answers_the_lists_once(capsys):
    """In process: the lines the SDK reads are the client's, in order; the SDK's answer to
    an id answered early is not sent, and logged when it differs; a later one is sent."""
    import io

    lines = [json.dumps(m) + "\n" for m in (INITIALIZE, INITIALIZED, *LIST_REQUESTS)]
    out = io.BytesIO()
    wire = mcp_server.Wire(io.BytesIO("".join(lines).encode()), out)
    wire.start()
    deadline = time.monotonic() + 30
    while out.getvalue().count(b"\n") < 1 + len(LIST_REQUESTS) and time.monotonic() < deadline:
        time.sleep(0.01)
    early = out.getvalue()
    assert [json.loads(line)["id"] for line in early.splitlines()] == [0, 1, 2, 3]
    assert [wire.readline() for _ in lines] == lines and wire.readline() == ""
    wire.write(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}) + "\n")
    assert out.getvalue() == early
    assert "the SDK answered tools/list otherwise" in capsys.readouterr().err
    again = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}) + "\n"
    wire.write(again)
    assert out.getvalue() == early + again.encode()


def test_the_sdks_models_of_the_tools_prompt_and_resources_dump_to_vybes_dicts():
    """mcp_tools builds the SDK's models from mcp_server's dicts: nothing is lost or added."""
    import mcp_types as types

    from vybe.integrations.mcp.tools import tool

    def dumped(model) -> dict:
        return model.model_dump(by_alias=True, mode="json", exclude_none=True)

    for op in catalog().on(MCP):
        assert dumped(tool(op)) == mcp_server.tool_json(op), op.tool
    assert dumped(types.Prompt.model_validate(mcp_server.PROMPT)) == mcp_server.PROMPT
    assert dumped(types.Resource.model_validate(mcp_server.RESOURCE)) == mcp_server.RESOURCE
    template = types.ResourceTemplate.model_validate(mcp_server.TEMPLATE)
    assert dumped(template) == mcp_server.TEMPLATE


def test_a_discover_for_a_version_vybe_does_not_serve_is_left_to_the_sdk():
    other = {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}
    assert mcp_server.early_result({**DISCOVER, "params": {"_meta": other}}) is None
    assert mcp_server.early_result({**DISCOVER, "params": {}}) is None
    assert mcp_server.early_result({"method": "tools/list"}) is None


def test_the_modern_versions_are_the_sdks():
    import mcp_types

    assert mcp_server.MODERN_VERSIONS == mcp_types.version.MODERN_PROTOCOL_VERSIONS


def test_an_unknown_protocol_version_gets_the_latest():
    result = mcp_server.initialize_result({"protocolVersion": "1999-01-01"})
    assert result["protocolVersion"] == mcp_server.HANDSHAKE_VERSIONS[-1]


def test_every_agent_facing_operation_is_a_tool_with_its_declared_schema(served):
    async def body(session):
        return (await session.list_tools()).tools

    tools = {t.name: t for t in served.run(body)}
    assert set(tools) >= AGENT_FACING
    for op in catalog().on(MCP):
        listed = tools[op.tool]
        assert listed.input_schema == op.input_schema(MCP), op.name
        assert listed.description and listed.output_schema["type"] == "object"
        hints = listed.annotations
        assert hints.read_only_hint is (not op.writes), op.name
        if op.writes:
            assert "request_id" in listed.input_schema["properties"], op.name
    assert tools["task_list"].input_schema["properties"]["status"]["enum"] == [
        "pending",
        "in_progress",
        "completed",
        "blocked",
    ]
    assert tools["memory_delete"].annotations.destructive_hint is True
    assert tools["task_get"].annotations.idempotent_hint is True


def test_a_task_lifecycle_and_memory_over_mcp(served):
    async def body(session):
        created = _data(await session.call_tool("task_create", {"title": "Ship it"}))
        task_id = created["task"]["id"]
        _data(await session.call_tool("task_begin", {"task_id": task_id}))
        _data(await session.call_tool("task_heartbeat", {"task_id": task_id, "lease": "30m"}))
        _data(await session.call_tool("task_note", {"task_id": task_id, "message": "half"}))
        brief = _data(await session.call_tool("resume_brief", {"peek": True}))
        db = {"key": "db", "scope": "task", "scope_id": task_id}
        _data(await session.call_tool("memory_set", {**db, "value": "postgres 16"}))
        _data(await session.call_tool("memory_pin", db))
        got = _data(await session.call_tool("memory_get", db))
        listed = _data(
            await session.call_tool("memory_list", {"scope": "task", "scope_id": task_id})
        )
        _data(await session.call_tool("task_done", {"task_id": task_id, "note": "shipped"}))
        tasks = _data(await session.call_tool("task_list", {"status": "completed"}))
        events = _data(await session.call_tool("events", {"task_id": task_id, "asc": True}))
        return task_id, brief, got, listed, tasks, events

    task_id, brief, got, listed, tasks, events = served.run(body)
    assert brief["focus_task_id"] == task_id and "prompt" in brief
    assert got["memory"]["value"] == "postgres 16" and got["memory"]["pinned"] is True
    assert listed["count"] == 1
    assert task_id in [t["id"] for t in tasks["tasks"]]
    assert events["events"][0]["kind"] == "task_created"
    cli_events = served.vybe.ok("events", "--task-id", task_id)["events"]
    assert {e["agent_name"] for e in cli_events} == {"mcp-agent"}


def test_errors_carry_the_code_and_name_the_argument(served):
    async def body(session):
        calls = {
            "missing": ("task_done", {"task_id": "task_0_nope"}),
            "negative": ("task_list", {"limit": -1}),
            "huge": ("task_list", {"limit": 2**63}),
            "zero": ("memory_list", {"limit": 0}),
            "unknown": ("task_list", {"colour": "red"}),
            "type": ("task_create", {"title": 5}),
            "absent": ("task_create", {}),
            "enum": ("memory_set", {"key": "k", "value": "v", "scope": "galaxy"}),
            "bool": ("task_list", {"limit": True}),
            "exactly_one": ("task_claim", {}),
            "no_tool": ("nosuch", {}),
        }
        return {k: await session.call_tool(name, args) for k, (name, args) in calls.items()}

    results = served.run(body)
    errors = {k: _error(v) for k, v in results.items()}
    assert errors["missing"]["error_code"] == "NOT_FOUND"
    for key, field in [
        ("negative", "limit"),
        ("huge", "limit"),
        ("zero", "limit"),
        ("unknown", "colour"),
        ("type", "title"),
        ("absent", "title"),
        ("enum", "scope"),
        ("bool", "limit"),
    ]:
        assert errors[key]["error_code"] == "INVALID_INPUT", key
        assert errors[key]["error_context"]["field"] == field, key
    assert errors["exactly_one"]["error_code"] == "INVALID_INPUT"
    assert errors["no_tool"]["error_code"] == "INVALID_INPUT"
    for result in results.values():
        text = result.content[0].text
        assert "Error executing tool" not in text and "--" not in text, text


def test_a_request_id_replays_the_first_result_and_refuses_other_arguments(served):
    async def body(session):
        args = {"title": "once", "request_id": "r-1"}
        first = _data(await session.call_tool("task_create", args))
        again = _data(await session.call_tool("task_create", args))
        other = await session.call_tool("task_create", {"title": "twice", "request_id": "r-1"})
        return first, again, other

    first, again, other = served.run(body)
    assert again == first
    assert _error(other)["error_code"] == "IDEMPOTENCY_MISMATCH"
    titles = [t["title"] for t in served.vybe.ok("task", "list", "--limit", "1000")["tasks"]]
    assert (titles.count("once"), titles.count("twice")) == (1, 0)


def test_resume_brief_is_bounded_and_pages_the_rest(served):
    store = SqliteStore(served.vybe.db_path)
    task_id = tasks.create(store, "someone", "r-long", title="long one")["task"]["id"]
    for n in range(60):
        tasks.note(store, "someone", f"r-{n}", task_id=task_id, message=f"{n} " + "x" * 3000)
    store.close()

    async def body(session):
        peeked = _data(await session.call_tool("resume_brief", {"peek": True}))
        moved = _data(
            await session.call_tool("resume_brief", {"peek": False, "request_id": "resume-1"})
        )
        again = _data(
            await session.call_tool("resume_brief", {"peek": False, "request_id": "resume-1"})
        )
        page = _data(await session.call_tool(moved["more"]["tool"], moved["more"]["arguments"]))
        return peeked, moved, again, page

    peeked, moved, again, page = served.run(body)
    assert peeked["new_cursor"] == peeked["old_cursor"]
    assert len(peeked["deltas"]) == 50 and len(json.dumps(peeked)) < 60_000
    assert all(len(d["message"]) <= 400 for d in peeked["deltas"])
    assert "budget" in peeked["brief"] and "memory" not in peeked["brief"]
    assert moved["new_cursor"] == moved["deltas"][-1]["id"] > 0
    assert again == moved
    assert page["events"][0]["id"] == moved["deltas"][-1]["id"] + 1


def test_the_brief_is_a_prompt_and_a_resource(served):
    task_id = served.vybe.task("Resume me")

    async def body(session):
        prompts = (await session.list_prompts()).prompts
        prompt = await session.get_prompt("resume")
        resource = await session.read_resource("vybe://brief")
        templates = (await session.list_resource_templates()).resource_templates
        task = await session.read_resource(f"vybe://task/{task_id}")
        return prompts, prompt, resource, templates, task

    prompts, prompt, resource, templates, task = served.run(body)
    expected = served.vybe.ok("brief", agent="mcp-agent")["prompt"]
    assert [p.name for p in prompts] == ["resume"]
    assert prompt.messages[0].content.text == expected
    assert resource.contents[0].text == expected
    assert [t.uri_template for t in templates] == ["vybe://task/{task_id}"]
    assert json.loads(task.contents[0].text)["task"]["id"] == task_id


def test_a_lone_surrogate_is_answered_with_invalid_input(vybe):
    """The SDK's JSON parser drops such a request unanswered; vybe answers it."""
    vybe.ok("init")
    lines = [
        INITIALIZE,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "task_create", "arguments": {"title": "\\ud800"}},
        },
    ]
    text = "".join(json.dumps(m).replace("\\\\ud800", "\\ud800") + "\n" for m in lines)
    done = subprocess.run(
        [VYBE, "mcp"], input=text.encode(), capture_output=True, env=vybe.env, timeout=60
    )
    answers = {m["id"]: m for m in map(json.loads, done.stdout.decode().splitlines())}
    result = answers[1]["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error_code"] == "INVALID_INPUT"
    assert vybe.ok("task", "list")["count"] == 0


def test_the_core_tools_stay_loaded_behind_a_tool_search_and_every_tool_can_be_found():
    """Claude Code 2.1.332 defers MCP tools behind its tool search: the few an agent needs
    first (named in the server's instructions) ask to stay loaded; each has search words."""
    from vybe.integrations.mcp.server import CORE
    from vybe.integrations.mcp.tools import tool
    from vybe.operations import catalog
    from vybe.operations.model import MCP

    listed = {op.tool: tool(op).model_dump(by_alias=True)["_meta"] for op in catalog().on(MCP)}
    assert {name for name, meta in listed.items() if meta.get("anthropic/alwaysLoad")} == set(CORE)
    assert all(meta["anthropic/searchHint"].startswith("vybe ") for meta in listed.values())
    assert all(name in mcp_server.INSTRUCTIONS for name in CORE)


def tool_search_score(words: str, tool: dict) -> int:
    """Claude Code 2.1.332's ToolSearch keyword score of an MCP tool, transcribed from its
    bundle: per word of the query, 12 for a part of the name (server and tool, split at
    ``_``) or 6 for a part holding it; 12 for the tool's whole name or 4 for one holding it;
    3 for the joined name holding it while nothing scored yet; 4 for a whole word of the
    searchHint, 2 of the description."""
    import re

    name, hint = tool["name"], tool["_meta"]["anthropic/searchHint"].lower()
    parts, coarse, description = ["vybe", *name.split("_")], ["vybe", name], tool["description"]
    score = 0
    for word in words.lower().split():
        whole = re.compile(rf"\b{re.escape(word)}\b")
        score += 12 if word in parts else 6 if any(word in p for p in parts) else 0
        score += 12 if word in coarse else 4 if any(word in p for p in coarse) else 0
        score += 3 if score == 0 and word in " ".join(parts) else 0
        score += 4 if whole.search(hint) else 0
        score += 2 if whole.search(description.lower()) else 0
    return score


@pytest.mark.parametrize(
    ("words", "wanted"),
    [
        ("add a new task to the project", "task_create"),  # not artifacts_add, as before
        ("find what we did before", "search"),
        ("what is left to do", "task_list"),
        ("hand the task to another agent", "task_assign"),
        ("recall what was saved", "memory_list"),
        ("claim the next task", "task_claim"),
        ("resume where I left off", "resume_brief"),
        ("mark the task done", "task_done"),
        ("remember this decision", "memory_set"),
    ],
)
def test_what_an_agent_types_finds_the_tool_first_in_claude_codes_tool_search(words, wanted):
    """The words an agent would type rank the tool it means first among vybe's, as Claude
    Code 2.1.332 ranks a deferred tool (e2e: the real one finds task_create so)."""
    from vybe.integrations.mcp.tools import tool

    tools = [tool(op).model_dump(by_alias=True) for op in catalog().on(MCP)]
    ranked = sorted(tools, key=lambda t: -tool_search_score(words, t))
    assert ranked[0]["name"] == wanted, [
        (t["name"], tool_search_score(words, t)) for t in ranked[:3]
    ]
