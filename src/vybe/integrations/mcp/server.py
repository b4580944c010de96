"""`vybe mcp`: vybe's operations as MCP tools, the brief as a prompt and as resources, over
stdio with the official SDK's low-level server.

Everything is built from the declarations (vybe.operations): a tool per operation offered
to MCP, its input schema (names, types, bounds, enums, help), output schema, annotations.
Arguments are checked against the declaration (unknown ones refused); a failure is a tool
result with ``isError`` and ``structuredContent`` holding vybe's error envelope, its text
starting with the stable code.

Start-up: importing the SDK takes a second or two (several on a loaded machine), and a
client that gets no answer meanwhile starts its model without vybe's tools. So ``serve``
answers the first request itself, from the standard library, when it is ``initialize`` or
the ``server/discover`` probe a client of the 2026-07-28 protocol sends instead (Claude Code
2.1.332), then reads the rest of stdin in a thread while the main thread imports the SDK.
After an early ``initialize``, that thread also answers the ``tools/list``,
``prompts/list`` and ``resources/list`` (without a cursor) that come before the SDK reads
its first line, from the same dicts the SDK's handlers are built from (``tool_json``,
``PROMPT``, ``RESOURCE``). Every line still reaches the SDK, in the order it came; its own
answers to the requests answered early are compared with them (a difference is logged on
stderr) and not sent. A request holding a lone surrogate, which the SDK's JSON parser would
drop unanswered, is answered here with INVALID_INPUT.

Each call runs on one of the SDK's worker threads, with that thread's own store (a SQLite
connection belongs to the thread that made it).
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, BinaryIO, TypeGuard, cast

from vybe import __version__
from vybe.errors import VybeError

if TYPE_CHECKING:
    from vybe.operations.model import Operation

# The protocol versions the SDK negotiates through ``initialize`` (checked against it in the
# tests), and its answer when the client asks for another.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# The versions it serves without a handshake: the client's first request is server/discover
# (checked against the SDK in the tests, as the handshake versions are).
MODERN_VERSIONS = ("2026-07-28",)
ENVELOPE = "io.modelcontextprotocol/"  # the prefix of a modern request's _meta keys
# The tools an agent needs first, which the instructions name.
CORE = ("resume_brief", "task_note", "task_done", "task_block", "task_claim", "memory_set")
INSTRUCTIONS = (
    "vybe keeps durable tasks, memory and a resume brief across sessions. Start with "
    "resume_brief (the prompt says what to do next), log progress with task_note, close "
    "work with task_done or task_block, take the next ready task with task_claim, keep what "
    "must outlive the session with memory_set. "
    "Writing tools take an optional request_id: retrying with the same one is safe."
)
CAPABILITIES = {
    "prompts": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
    "tools": {"listChanged": False},
}
INVALID_PARAMS = -32602
BRIEF_URI = "vybe://brief"
TASK_URI = "vybe://task/{task_id}"
# The prompt and the resources as the SDK sends them (mcp.tools builds its models from them).
PROMPT = {
    "name": "resume",
    "title": "Resume",
    "description": "Where this agent stands and what to do next: vybe's resume brief "
    "(nothing moves; resume_brief moves the cursor).",
    "arguments": [
        {"name": "task_id", "description": "this task instead of the focus", "required": False}
    ],
}
RESOURCE = {
    "name": "brief",
    "title": "Resume brief",
    "uri": BRIEF_URI,
    "description": "The resume prompt for this agent's focus (nothing moves).",
    "mimeType": "text/markdown",
}
TEMPLATE = {
    "name": "task",
    "title": "Task",
    "uriTemplate": TASK_URI,
    "description": "A task with its dependencies and open blockers, as JSON.",
    "mimeType": "application/json",
}
LISTS = ("tools/list", "prompts/list", "resources/list")  # answered early after initialize


# The core tools (CORE) are kept loaded by a Claude Code that defers MCP tools behind its
# tool search (``anthropic/alwaysLoad``); every tool carries words to be found by
# (``anthropic/searchHint``: its name, summary and the words an agent types for it, which
# Claude Code 2.1.332's keyword search weighs above the description). Other clients ignore
# _meta.


def tool_json(op: Operation) -> dict:
    """The operation's tool as the SDK sends it in ``tools/list`` (mcp.tools.tool is the
    SDK's model of this dict)."""
    from vybe.operations.model import MCP

    read_only = not op.writes
    meta: dict[str, object] = {
        "anthropic/searchHint": f"vybe {op.name}: {op.summary} {op.finds}".rstrip()
    }
    if op.tool in CORE:
        meta["anthropic/alwaysLoad"] = True
    return {
        "name": op.tool,
        "title": op.name,
        "description": op.summary + _peek_note(op),
        "inputSchema": op.input_schema(MCP),
        "outputSchema": op.output_schema(),
        "annotations": {
            "title": op.name,
            "readOnlyHint": read_only,
            "destructiveHint": op.destructive if op.writes else False,
            "idempotentHint": read_only or op.idempotent,
            "openWorldHint": False,
        },
        "_meta": meta,
    }


def _peek_note(op: Operation) -> str:
    return f" With {op.peek}=true it writes nothing." if op.peek else ""


def list_result(method: str) -> dict:
    """The SDK's answer to a ``tools/list``, ``prompts/list`` or ``resources/list`` (one page:
    no cursor)."""
    if method == "tools/list":
        from vybe.operations import catalog
        from vybe.operations.model import MCP

        return {"tools": [tool_json(op) for op in catalog().on(MCP)]}
    return {"prompts": [PROMPT]} if method == "prompts/list" else {"resources": [RESOURCE]}


def is_request(message: object) -> TypeGuard[dict]:
    """A JSON-RPC request the SDK would answer: version 2.0, an integer or string id."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    return type(message.get("id")) in (int, str) and isinstance(message.get("method"), str)


def is_plain_list(message: object) -> TypeGuard[dict]:
    """A request for one of LISTS with no params (no cursor, no ``_meta``)."""
    return (
        is_request(message) and message["method"] in LISTS and message.get("params") in (None, {})
    )


def initialize_result(params: dict) -> dict:
    requested = params.get("protocolVersion") if isinstance(params, dict) else None
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {
        "protocolVersion": version,
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": "vybe", "version": __version__},
        "instructions": INSTRUCTIONS,
    }


def discover_result(params: object) -> dict | None:
    """The SDK's answer to a ``server/discover`` whose envelope asks for a version it serves
    and names the client and its capabilities; None for any other (the SDK answers it)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    if not isinstance(meta, dict) or meta.get(f"{ENVELOPE}protocolVersion") not in MODERN_VERSIONS:
        return None
    if not all(f"{ENVELOPE}{key}" in meta for key in ("clientInfo", "clientCapabilities")):
        return None
    return {
        "cacheScope": "private",
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "supportedVersions": list(MODERN_VERSIONS),
        "ttlMs": 0,
        "_meta": {f"{ENVELOPE}serverInfo": {"name": "vybe", "version": __version__}},
    }


def early_result(message: object) -> dict | None:
    """The answer to a first request that vybe gives before the SDK is loaded, or None."""
    if not is_request(message):
        return None
    if message["method"] == "initialize":
        return initialize_result(message.get("params") or {})
    if message["method"] == "server/discover":
        return discover_result(message.get("params"))
    return None


def error_result(error: VybeError) -> dict:
    """A tool's failure as MCP returns it: the envelope in structuredContent, the text
    starting with the code."""
    envelope = {
        "error_code": error.code,
        "error": error.message,
        "error_context": error.context,
        "suggested_action": error.suggested_action,
    }
    text = f"{error.code}: {error.message}"
    if error.suggested_action:
        text += f" ({error.suggested_action})"
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": envelope,
        "isError": True,
    }


def _refusal(message: object) -> dict | None:
    """The answer to a request the SDK could not read: a lone surrogate in its text."""
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        return None
    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass
    from vybe.errors import InvalidInput

    error = InvalidInput(
        "the request holds text that is not valid UTF-8 (a lone surrogate)",
        context={"method": message["method"]},
        suggested_action="send text encoded as UTF-8",
    )
    reply: dict[str, object] = {"jsonrpc": "2.0", "id": message["id"]}
    if message["method"] == "tools/call":
        reply["result"] = error_result(error)
    else:
        reply["error"] = {"code": INVALID_PARAMS, "message": f"{error.code}: {error.message}"}
    return reply


class Wire:
    """stdin and stdout as the SDK's stdio transport uses them (``readline``, ``write``,
    ``flush``), with vybe in front: the early answers and the refused requests."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._in, self._out = stdin, stdout
        self._lock = threading.Lock()
        self._lines: queue.SimpleQueue[str] = queue.SimpleQueue()  # for the SDK, in order
        self._early: dict[object, tuple[str, dict]] = {}  # id -> (method, result sent)
        self._listing = False  # the lists are answered early: after initialize, until the SDK reads

    def send(self, message: dict) -> None:
        self._emit(json.dumps(message, ensure_ascii=False) + "\n")

    def _emit(self, text: str) -> None:
        with self._lock:
            self._out.write(text.encode("utf-8"))
            self._out.flush()

    def start(self) -> None:
        """Read the first message and answer it now when it is ``initialize`` or a
        ``server/discover`` vybe can answer; then read the rest in a thread, which answers
        the lists early after an ``initialize`` while the SDK imports."""
        raw = self._in.readline()
        if not raw:
            self._lines.put("")
            return
        self._listing = self._take(raw, early_result) == "initialize"
        threading.Thread(target=self._read_on, name="vybe-mcp-stdin", daemon=True).start()

    def _read_on(self) -> None:
        try:
            while raw := self._in.readline():
                self._take(raw, self._list_result)
        finally:
            self._lines.put("")  # the end of the input, for the SDK

    def _list_result(self, message: object) -> dict | None:
        if not self._listing or not is_plain_list(message):
            return None
        return list_result(message["method"])

    def _take(self, raw: bytes, answer: Callable[[object], dict | None]) -> str | None:
        """Queue a line for the SDK, answered first when ``answer`` has a result for it (then
        its method is returned); a request the SDK could not read is refused here instead."""
        try:
            message = json.loads(raw.decode("utf-8", "surrogateescape"))
        except ValueError:
            message = None
        refused = _refusal(message)
        if refused is not None:
            self.send(refused)
            return None
        result, method = answer(message), None
        if result is not None:
            request = cast(dict, message)
            method = request["method"]
            self._early[request["id"]] = (method, result)
            self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
        self._lines.put(raw.decode("utf-8", "replace"))
        return method

    def readline(self) -> str:
        self._listing = False  # the SDK reads: it answers from now on
        return self._lines.get()

    def write(self, text: str) -> int:
        if not (self._early and self._answered_early(text)):
            self._emit(text)
        return len(text)

    def _answered_early(self, text: str) -> bool:
        """Whether ``text`` is the SDK's answer to a request answered early (then logged on
        stderr when it differs from the early one)."""
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or "method" in message or "id" not in message:
            return False  # not an answer
        if message["id"] not in self._early:
            return False
        method, early = self._early.pop(message["id"])
        if message.get("result") != early:
            sys.stderr.write(
                f"vybe mcp: the SDK answered {method} otherwise than vybe did early: "
                f"{json.dumps(message.get('result'))} (sent: {json.dumps(early)})\n"
            )
        return True

    def flush(self) -> None:
        return None


def serve(settings: object, build: Callable[[Any], Any]) -> None:
    """Serve over stdio until the client closes the stream (stdout carries JSON-RPC only);
    ``build(settings)`` makes the SDK's server (vybe.integrations.mcp.tools.build), called
    once ``initialize`` is answered."""
    wire = Wire(sys.stdin.buffer, sys.stdout.buffer)
    wire.start()
    import anyio

    anyio.run(_serve, settings, wire, build)


async def _serve(settings: Any, wire: Wire, build: Callable[[Any], Any]) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(settings)
    stream = anyio.wrap_file(cast(IO[str], wire))  # a text file: readline, write, flush
    async with stdio_server(stream, stream) as (read, write):
        await server.run(read, write, server.create_initialization_options())
