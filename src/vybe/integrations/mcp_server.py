"""`vybe mcp`: vybe's operations as MCP tools, the brief as a prompt and as resources, over
stdio with the official SDK's low-level server.

Everything is built from the declarations (vybe.operations): a tool per operation offered
to MCP, its input schema (names, types, bounds, enums, help), output schema, annotations.
Arguments are checked against the declaration (unknown ones refused); a failure is a tool
result with ``isError`` and ``structuredContent`` holding vybe's error envelope, its text
starting with the stable code.

Start-up: importing the SDK takes a second or two, and a client that gets no answer to
``initialize`` meanwhile starts its model without vybe's tools. So ``serve`` answers the
first request itself, from the standard library, when it is ``initialize`` or the
``server/discover`` probe a client of the 2026-07-28 protocol sends instead (Claude Code
2.1.332), then imports the SDK and hands it the same request first; the SDK's own answer is
compared with the early one (a difference is logged on stderr) and not sent. The few
requests that arrive meanwhile wait in the pipe. A request holding a lone surrogate, which
the SDK's JSON parser would drop unanswered, is answered here with INVALID_INPUT.

Each call runs on one of the SDK's worker threads, with that thread's own store (a SQLite
connection belongs to the thread that made it).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import IO, Any, BinaryIO, cast

from vybe import __version__
from vybe.errors import VybeError

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
    if not isinstance(message, dict):
        return None
    if message.get("method") == "initialize":
        return initialize_result(message.get("params") or {})
    if message.get("method") == "server/discover":
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
    ``flush``), with vybe in front: the early ``initialize`` and the refused requests."""

    def __init__(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self._in, self._out = stdin, stdout
        self._lock = threading.Lock()
        self._replay: list[str] = []
        self._early: tuple[object, dict] | None = None

    def send(self, message: dict) -> None:
        self._emit(json.dumps(message, ensure_ascii=False) + "\n")

    def _emit(self, text: str) -> None:
        with self._lock:
            self._out.write(text.encode("utf-8"))
            self._out.flush()

    def answer_first(self) -> None:
        """Read the first message; answer it now when it is ``initialize`` or a
        ``server/discover`` vybe can answer. The SDK reads it again first either way."""
        raw = self._in.readline()
        if not raw:
            return
        line = raw.decode("utf-8", "replace")
        self._replay.append(line)
        try:
            message = json.loads(line)
        except ValueError:
            return
        result = early_result(message)
        if result is not None:
            self._early = (message.get("id"), result)
            self.send({"jsonrpc": "2.0", "id": message.get("id"), "result": result})

    def readline(self) -> str:
        while True:
            if self._replay:
                return self._replay.pop(0)
            raw = self._in.readline()
            if not raw:
                return ""
            line = raw.decode("utf-8", "surrogateescape")
            try:
                refused = _refusal(json.loads(line))
            except ValueError:
                refused = None
            if refused is None:
                return raw.decode("utf-8", "replace")
            self.send(refused)

    def write(self, text: str) -> int:
        if self._early is not None and self._is_early_reply(text, *self._early):
            return len(text)
        self._emit(text)
        return len(text)

    def _is_early_reply(self, text: str, early_id: object, early: dict) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != early_id:
            return False
        self._early = None
        if message.get("result") != early:
            sys.stderr.write(
                "vybe mcp: the SDK answered initialize otherwise than vybe did early: "
                f"{json.dumps(message.get('result'))} (sent: {json.dumps(early)})\n"
            )
        return True

    def flush(self) -> None:
        return None


def serve(settings: object, build: Callable[[Any], Any]) -> None:
    """Serve over stdio until the client closes the stream (stdout carries JSON-RPC only);
    ``build(settings)`` makes the SDK's server (vybe.integrations.mcp_tools.build), called
    once ``initialize`` is answered."""
    wire = Wire(sys.stdin.buffer, sys.stdout.buffer)
    wire.answer_first()
    import anyio

    anyio.run(_serve, settings, wire, build)


async def _serve(settings: Any, wire: Wire, build: Callable[[Any], Any]) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(settings)
    stream = anyio.wrap_file(cast(IO[str], wire))  # a text file: readline, write, flush
    async with stdio_server(stream, stream) as (read, write):
        await server.run(read, write, server.create_initialization_options())
