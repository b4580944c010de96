"""Two small fake model servers for the e2e suite: Anthropic Messages and OpenAI Responses.

Standard library only, bound to 127.0.0.1 on a random port. The reply to a request is
decided by the last thing in its conversation, so a scenario scripts a turn by what the
person types:

- ``[[bash: CMD]]`` asks for one shell call (Claude's Bash, Codex's exec_command); the
  reply after the tool result is ``done: <first line of the result>``.
- ``[[brief: NAME]]`` runs the brief's NAME command line (``DONE``, ``LOG``, …) as it stands
  in the last brief the request holds, ``<…>`` placeholders filled with ``from the brief``.
- ``[[search: WORDS]]`` runs the search command line of the last compaction context the
  request holds (``vybe … search '<words>' --session-id …``), WORDS in place of ``<words>``.
- ``[[mcp: TOOL {json}]]`` asks for one call of vybe's MCP tool TOOL.
- ``[[find: WORDS -> TOOL {json}]]`` (Claude) reaches vybe's TOOL as a model must where it
  is deferred: a ToolSearch for WORDS, then a call of the first vybe tool the search loaded
  (TOOL itself where its schema is already loaded).
- ``[[plan: step one; step two]]`` (Claude) writes a plan of those steps with Write to the
  plan file plan mode's instructions name, then calls ExitPlanMode.
- ``[[task: SUBJECT]]`` (Claude) creates a task with TaskCreate, then completes it.
- ``[[long: N]]`` answers N words.
- ``[[too-long]]`` (Claude) answers 400 "prompt is too long" once, to force a compaction.
- anything else is answered ``reply to: <the prompt's first 60 characters>``.

A vybe checkpoint turn (``vybe proxy`` answering a client's compaction sends it upstream) is
answered by vybe's offline consolidator, as an obedient model would (``checkpoint_reply``):
the one thing here that imports vybe, only when such a request comes.

A Claude tool the request names as deferred (2.1.332: "load tool schemas before calling
them: …", not in ``tools``) is called as a model must: ToolSearch ``select:<name>`` first,
then the tool once its schema is loaded.

Every request is appended to ``requests.jsonl`` in the log folder (path, the headers naming
the client and its session, body), which the checks read to see what reached the model.
"""

from __future__ import annotations

import json
import re
import shlex
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from vybe.served import QuietServer

DIRECTIVE = re.compile(
    r"\[\[(bash|brief|search|mcp|find|plan|task|long|too-long)(?::\s*(.*?))?\]\]", re.S
)
SEARCH_PLACEHOLDER = "'<words>'"  # as shell_word quotes it in the search hint's line
# Blocks of a user message the harness wrote, never what the person typed: its reminders,
# and (2.1.332, in the same message as the next prompt) a slash command run before it.
HARNESS_BLOCKS = ("<system-reminder>", "<local-command-", "<command-name>")
SUMMARY_ASK = re.compile(r"(?i)(summary of the conversation|summarize|compact)")
CHECKPOINT_TURN = "<context-checkpoint-request>"  # vybe.context.protocol.REQUEST_OPEN
REPO = Path(__file__).resolve().parent.parent
DEFERRED = re.compile(r"load tool schemas before calling them:\s*((?:[\w-]+\s)+)")
# The request headers the log keeps: those naming the client and its session (OpenCode's).
NAMING_HEADERS = ("user-agent", "x-session-id")
PLAN_FILE = re.compile(r"(?:create your plan at|plan file already exists at) (\S+\.md)")


def checkpoint_reply(wire: str, body: dict[str, Any]) -> tuple[str, list[tuple[str, str, Any]]]:
    """vybe's offline consolidator's reply to a checkpoint turn: text, and (id, name, args)
    of each call. The wire body is read back as the test suite's fake servers read it."""
    import sys

    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.fakes.brain import PARSERS

    from vybe.agent.offline import Consolidator

    reply = Consolidator().complete(PARSERS[wire](body))
    return reply.text, [(c.id, c.name, c.arguments) for c in reply.tool_calls]


def is_checkpoint_turn(body: dict[str, Any]) -> bool:
    return CHECKPOINT_TURN in json.dumps(body)


def brief_command(body: dict[str, Any], name: str) -> str:
    """The last ``NAME:`` command line of a brief anywhere in the request, placeholders filled."""
    lines = [
        line.split(None, 1)[1]
        for text in strings_of(body)
        for line in text.splitlines()
        if line.startswith(f"{name}:") and len(line.split(None, 1)) == 2
    ]
    return re.sub(r"<[^<>]+>", "from the brief", lines[-1]) if lines else "false no-brief-line"


def search_command(body: dict[str, Any], words: str) -> str:
    """The last search command line a compaction's context in the request gave, ``words``
    (shell-quoted) in place of its ``<words>`` placeholder."""
    lines = [
        line.strip()
        for text in strings_of(body)
        for line in text.splitlines()
        if SEARCH_PLACEHOLDER in line and " search " in line and "--session-id" in line
    ]
    if not lines:
        return "false no-search-line"
    return lines[-1].replace(SEARCH_PLACEHOLDER, shlex.quote(words))


def command_of(body: dict[str, Any], kind: str, arg: str) -> tuple[str, str]:
    """A ``brief`` or ``search`` directive as the shell call it makes; others as they are."""
    if kind == "brief":
        return "bash", brief_command(body, arg)
    if kind == "search":
        return "bash", search_command(body, arg)
    return kind, arg


def strings_of(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_of(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_of(v)]
    return []


def dicts_of(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value, *(d for v in value.values() for d in dicts_of(v))]
    if isinstance(value, list):
        return [d for v in value for d in dicts_of(v)]
    return []


def loaded_tools(body: dict[str, Any]) -> set[str]:
    """The tools whose schema a Claude request holds: offered in ``tools`` as loaded, or
    referenced by a ToolSearch result (``tool_reference``, which the API expands from the
    ``defer_loading`` entry Claude Code then adds)."""
    offered = {str(t.get("name")) for t in body.get("tools") or [] if not t.get("defer_loading")}
    found = dicts_of(body.get("messages"))
    return offered | {str(d.get("tool_name")) for d in found if d.get("type") == "tool_reference"}


def unloaded_tools(body: dict[str, Any]) -> set[str]:
    """The tools a Claude request names as deferred whose schema it does not hold."""
    named = {
        n for t in strings_of(body) for found in DEFERRED.finditer(t) for n in found[1].split()
    }
    named |= {str(t.get("name")) for t in body.get("tools") or [] if t.get("defer_loading")}
    return named - loaded_tools(body)


# What a model searches for when it wants a tool that makes a task ([[find]]).
FIND_WORDS = "add a new task to the project"
PLUGIN_PREFIX = "mcp__plugin_vybe_vybe__"  # Claude Code names a plugin's server plugin:vybe:vybe


def vybe_tool(body: dict[str, Any], name: str) -> str:
    """vybe's MCP tool ``name`` as the request offers it: ``mcp__vybe__NAME`` (setup, `claude
    mcp add`) or ``mcp__plugin_vybe_vybe__NAME`` (the plugin), loaded or deferred."""
    offered = {str(t.get("name")) for t in body.get("tools") or []} | unloaded_tools(body)
    plugin = any(n.startswith(PLUGIN_PREFIX) for n in offered)
    return f"{PLUGIN_PREFIX if plugin else 'mcp__vybe__'}{name}"


def directive(text: str) -> tuple[str, str] | None:
    found = DIRECTIVE.search(text)
    return (found.group(1), (found.group(2) or "").strip()) if found else None


class Log:
    """The requests a server received, kept in memory and appended to a file."""

    def __init__(self, path: Path) -> None:
        self.path, self.lock, self.entries = path, threading.Lock(), []
        path.write_text("")

    def add(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.entries.append(entry)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: FakeServer

    def log_message(self, *args: Any) -> None:  # quiet: the log file says what came in
        pass

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.server.log.add({"method": "GET", "path": self.path})
        self._json(200, {"data": [], "object": "list"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        named = {k.lower(): v for k, v in self.headers.items() if k.lower() in NAMING_HEADERS}
        self.server.log.add({"method": "POST", "path": self.path, "headers": named, "body": body})
        self.server.answer(self, body)

    def _json(self, status: int, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        chunks = [f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events]
        data = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeServer(QuietServer):
    daemon_threads = True

    def __init__(self, log_dir: Path) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log = Log(log_dir / "requests.jsonl")
        self.counter = 0
        self.used: set[str] = set()  # one-shot directives already answered (too-long)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def next_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}_{self.counter:04d}"

    def start(self) -> FakeServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def answer(self, handler: Handler, body: dict[str, Any]) -> None:
        raise NotImplementedError


def _reply_text(prompt: str, after_tool: str | None) -> str:
    if after_tool is not None:
        first = after_tool.strip().splitlines()[0] if after_tool.strip() else ""
        return f"done: {first[:80]}"
    found = directive(prompt)
    if found and found[0] == "long":
        count = int(found[1] or 200)
        return " ".join(f"word{i}" for i in range(count))
    return f"reply to: {prompt.strip()[:60]}"


# ---------------------------------------------------------------- Anthropic Messages


def blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _block_text(block: dict[str, Any]) -> str:
    content = block.get("content", block.get("text", ""))
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return str(content)


class Anthropic(FakeServer):
    """``POST /v1/messages`` (streaming SSE or JSON). A turn of several calls is a chain: the
    calls still to make wait in ``then``, under the id of the call whose result comes first."""

    def __init__(self, log_dir: Path) -> None:
        super().__init__(log_dir)
        self.then: dict[str, list[dict[str, Any]]] = {}

    def answer(self, handler: Handler, body: dict[str, Any]) -> None:
        if not handler.path.startswith("/v1/messages"):
            handler._json(404, {"type": "error", "error": {"type": "not_found_error"}})
            return
        if is_checkpoint_turn(body):
            text, calls = checkpoint_reply("anthropic", body)
            content = [{"type": "text", "text": text}] if text else []
            content += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls]
            self._send(handler, body, content)
            return
        messages = [m for m in body.get("messages") or [] if m.get("role") != "system"]
        last = blocks(messages[-1].get("content")) if messages else []
        results = [b for b in last if b.get("type") == "tool_result"]
        prompt = "\n".join(
            b.get("text", "")
            for b in last
            if b.get("type") == "text" and not b.get("text", "").startswith(HARNESS_BLOCKS)
        )
        if results:
            content = self._after_tool(body, messages, results[-1])
        elif SUMMARY_ASK.search(prompt) and "[[" not in prompt:
            content = [{"type": "text", "text": "<summary>The session so far.</summary>"}]
        else:
            found = directive(prompt)
            if found and found[0] == "too-long" and prompt not in self.used:
                self.used.add(prompt)
                handler._json(
                    400,
                    {
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": "prompt is too long"},
                    },
                )
                return
            if found:
                found = command_of(body, *found)
            content = self._content(body, prompt, found)
        self._send(handler, body, content)

    def _after_tool(self, body: dict[str, Any], messages: list, result: dict[str, Any]) -> list:
        queued = self.then.pop(str(result.get("tool_use_id")), None)
        if queued and "find" in queued[0]:
            return [self._find(body, *queued[0]["find"], tries=queued[0]["tries"])]
        if queued and "found" in queued[0]:
            return [self._found(body, result, queued[0])]
        if queued:
            return [self._call(body, *queued)]
        pending = self._pending_after(messages, _block_text(result))
        if pending:
            return [pending]
        return [{"type": "text", "text": _reply_text("", _block_text(result))}]

    def _call(self, body: dict[str, Any], call: dict[str, Any], *then: dict[str, Any]) -> dict:
        """``call``, or first the ToolSearch that loads its schema when the request names it
        deferred; the calls after it wait for its result."""
        queue = list(then)
        if call["name"] in unloaded_tools(body):
            queue.insert(0, call)
            call = self._tool("ToolSearch", {"query": f"select:{call['name']}"})
        if queue:
            self.then[call["id"]] = queue
        return call

    def _find(self, body: dict, words: str, name: str, args: dict, tries: int = 0) -> dict:
        """[[find]]: vybe's tool ``name`` where its schema is loaded; else WaitForMcpServers
        while vybe's server is connecting, once, then the same choice; else a ToolSearch for
        ``words`` (the tool's schema is not in the request: deferred, or not listed yet)."""
        tool, offered = vybe_tool(body, name), {t.get("name") for t in body.get("tools") or []}
        if tool in loaded_tools(body):
            return self._tool(tool, args)
        if "WaitForMcpServers" in offered and not tries:
            wait = self._tool("WaitForMcpServers", {})
            self.then[wait["id"]] = [{"find": (words, name, args), "tries": 1}]
            return wait
        if "ToolSearch" in offered:
            search = self._tool("ToolSearch", {"query": words})
            self.then[search["id"]] = [{"found": (words, name, args), "tries": tries}]
            return search
        return self._tool(tool, args)

    def _found(self, body: dict, result: dict, asked: dict) -> dict:
        """After a [[find]]'s ToolSearch: a call of the first vybe tool it loaded; when it
        loaded none (vybe's server connected, its tools not listed yet), again, twice at most."""
        loaded = [d.get("tool_name") for d in dicts_of(result) if d.get("type") == "tool_reference"]
        vybe = [str(n) for n in loaded if str(n).startswith(("mcp__vybe__", PLUGIN_PREFIX))]
        words, name, args = asked["found"]
        if vybe or asked["tries"] > 1:
            return self._tool(vybe[0] if vybe else "mcp__vybe__nothing_found", args)
        return self._find(body, words, name, args, tries=asked["tries"] + 1)

    def _pending_after(self, messages: list[dict[str, Any]], result: str) -> dict[str, Any] | None:
        """A call of a server still connecting waits for it (as the error asks), then is made
        again."""
        calls = [
            b
            for m in messages
            if m.get("role") == "assistant"
            for b in blocks(m.get("content"))
            if b.get("type") == "tool_use"
        ]
        if "Call WaitForMcpServers" in result:
            return self._tool("WaitForMcpServers", {})
        if len(calls) > 1 and calls[-1].get("name") == "WaitForMcpServers":
            return self._tool(calls[-2]["name"], calls[-2].get("input") or {})
        return None

    def _tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"type": "tool_use", "id": self.next_id("toolu"), "name": name, "input": arguments}

    def _content(self, body: dict[str, Any], prompt: str, found: tuple[str, str] | None) -> list:
        kind, arg = found or ("", "")
        if kind == "bash":
            return [self._tool("Bash", {"command": arg, "description": "run it"})]
        if kind == "mcp":
            name, _, rest = arg.partition(" ")
            return [self._call(body, self._tool(vybe_tool(body, name), json.loads(rest or "{}")))]
        if kind == "find":
            words, _, call = arg.partition("->")
            name, _, rest = call.strip().partition(" ")
            return [self._find(body, words.strip(), name, json.loads(rest or "{}"))]
        if kind == "plan":
            return [self._call(body, *self._plan(body, arg))]
        if kind == "task":
            create = self._tool("TaskCreate", {"subject": arg, "description": arg})
            done = self._tool("TaskUpdate", {"taskId": "1", "status": "completed"})
            return [self._call(body, create, done)]
        return [{"type": "text", "text": _reply_text(prompt, None)}]

    def _plan(self, body: dict[str, Any], arg: str) -> list[dict[str, Any]]:
        """Write the plan to the plan file the request names, then ExitPlanMode with no plan
        in the call (the file holds it), as plan mode asks (2.1.197 and 2.1.332 alike)."""
        steps = [s.strip() for s in arg.split(";") if s.strip()]
        plan = "# Plan\n\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1)) + "\n"
        files = [found[1] for text in strings_of(body) for found in PLAN_FILE.finditer(text)]
        path = files[-1] if files else "/no-plan-file-named.md"  # the Write fails: visible
        return [
            self._tool("Write", {"file_path": path, "content": plan}),
            self._tool("ExitPlanMode", {}),
        ]

    def _send(self, handler: Handler, body: dict[str, Any], content: list) -> None:
        stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
        message = {
            "id": self.next_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-fake"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }
        if not body.get("stream"):
            handler._json(200, message)
            return
        start = {**message, "content": [], "stop_reason": None}
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": start})
        ]
        for index, block in enumerate(content):
            events += self._block_events(index, block)
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 20},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        handler.sse(events)

    @staticmethod
    def _block_events(index: int, block: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        if block["type"] == "text":
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        return [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]


# ---------------------------------------------------------------- OpenAI Responses


def _input_text(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(str(c.get("text", "")) for c in content or [] if isinstance(c, dict))


class OpenAI(FakeServer):
    """``POST /v1/responses`` (streaming events through ``response.completed``)."""

    def __init__(self, log_dir: Path, usage_tokens: int = 100) -> None:
        super().__init__(log_dir)
        self.usage_tokens = usage_tokens  # reported input tokens (above a small limit: compaction)

    def usage_of(self, prompt: str) -> int:
        """The input tokens a response reports. A search call reports few, so Codex sends its
        result on to the model instead of compacting first (which would drop it)."""
        found = directive(prompt)
        return 100 if found and found[0] == "search" else self.usage_tokens

    def answer(self, handler: Handler, body: dict[str, Any]) -> None:
        if not handler.path.startswith("/v1/responses"):
            handler._json(404, {"error": {"message": "not found"}})
            return
        if is_checkpoint_turn(body):
            text, calls = checkpoint_reply("responses", body)
            output = [self._message(text)] if text else []
            output += [{**self._call(), "name": n, "arguments": json.dumps(a)} for _, n, a in calls]
            self._send(handler, output, 100)
            return
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        # Hook context (a developer message) may follow the prompt it answers: skip it.
        said = [i for i in items if i.get("role") != "developer"]
        last = said[-1] if said else {}
        prompt = _input_text(last) if last.get("role") == "user" else ""
        if last.get("type") == "function_call_output":
            output = last.get("output")
            text = output if isinstance(output, str) else json.dumps(output)
            item = self._message(_reply_text("", _command_output(text)))
        elif SUMMARY_ASK.search(prompt) and "[[" not in prompt:
            item = self._message("The session so far, summarised.")
        else:
            item = self._item(prompt, body)
        self._send(handler, [item], self.usage_of(prompt))

    def _message(self, text: str) -> dict[str, Any]:
        return {
            "type": "message",
            "id": self.next_id("msg"),
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }

    def _item(self, prompt: str, body: dict[str, Any]) -> dict[str, Any]:
        kind, arg = command_of(body, *(directive(prompt) or ("", "")))
        call = self._call()
        if kind == "bash":
            return {**call, "name": "exec_command", "arguments": json.dumps({"cmd": arg})}
        if kind == "mcp":
            name, _, rest = arg.partition(" ")
            return {**call, "name": name, "namespace": "mcp__vybe", "arguments": rest or "{}"}
        return self._message(_reply_text(prompt, None))

    def _call(self) -> dict[str, Any]:
        return {"type": "function_call", "id": self.next_id("fc"), "call_id": self.next_id("call")}

    def _send(self, handler: Handler, output: list[dict[str, Any]], tokens: int) -> None:
        rid = self.next_id("resp")
        usage = {
            "input_tokens": tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens + 20,
        }
        base = {"id": rid, "object": "response", "model": "gpt-fake"}
        events: list[tuple[str, dict[str, Any]]] = [
            ("response.created", {"response": {**base, "status": "in_progress", "output": []}}),
        ]
        for index, item in enumerate(output):
            events += self._item_events(index, item)
        done = {**base, "status": "completed", "output": output, "usage": usage}
        events.append(("response.completed", {"response": done}))
        handler.sse([(name, {"type": name, **data}) for name, data in events])

    @staticmethod
    def _item_events(index: int, item: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        opened = {**item, "status": "in_progress"}
        if item["type"] == "message":
            opened["content"] = []
        events: list[tuple[str, dict[str, Any]]] = [
            ("response.output_item.added", {"output_index": index, "item": opened}),
        ]
        if item["type"] == "message":
            text = item["content"][0]["text"]
            part = {"item_id": item["id"], "output_index": index, "content_index": 0}
            events += [
                (
                    "response.content_part.added",
                    {**part, "part": {"type": "output_text", "text": "", "annotations": []}},
                ),
                ("response.output_text.delta", {**part, "delta": text}),
                ("response.output_text.done", {**part, "text": text}),
            ]
        events.append(("response.output_item.done", {"output_index": index, "item": item}))
        return events


def _command_output(text: str) -> str:
    """Codex wraps a command's output in a header ("Process exited with code 1 ... Output:")."""
    _, marker, rest = text.partition("Output:\n")
    return rest if marker else text


# ---------------------------------------------------------------- OpenAI Chat Completions


EDIT = re.compile(r"\[\[edit: (\S+)\]\]")


class Chat(FakeServer):
    """``POST …/chat/completions`` (Aider, through litellm): streamed in pieces when asked
    (a delta a word), else one JSON reply. The reply is decided by the last user message,
    as the other servers decide theirs (``[[edit: FILE]]``: FILE's new content in Aider's
    whole-file format, an edit it applies, after which it summarises a long history); a
    summary request (Aider's weak model) gets a paraphrase of its own, as a model would.
    ``counted``: the input tokens a reply reports are the request's size (a character in
    four), as a real model's grow with the history (OpenCode compacts by them)."""

    def __init__(self, log_dir: Path, counted: bool = False) -> None:
        super().__init__(log_dir)
        self.counted = counted

    def answer(self, handler: Handler, body: dict[str, Any]) -> None:
        if not handler.path.split("?", 1)[0].endswith("/chat/completions"):
            handler._json(404, {"error": {"message": "not found"}})
            return
        messages = dicts_of(body.get("messages"))
        if is_checkpoint_turn(body):
            text, calls = checkpoint_reply("openai", body)
        else:
            users = [m for m in messages if m.get("role") == "user"]
            prompt = _input_text(users[-1]) if users else ""
            system = (
                _input_text(messages[0]) if messages and messages[0].get("role") == "system" else ""
            )
            edit = EDIT.search(prompt)
            if "summarize this partial conversation" in system:
                text = "I asked you about a number of things, summarised."
            elif edit:
                text = f"{edit.group(1)}\n```\ndef hello():\n    print('hi')\n```\n"
            else:
                text = _reply_text(prompt, None)
            calls = []
        self._send(handler, body, text, calls)

    def _send(self, handler: Handler, body: dict[str, Any], text: str, calls: list) -> None:
        cid, model = self.next_id("chatcmpl"), str(body.get("model") or "gpt-fake")
        tool_calls = [
            {
                "index": i,
                "id": c,
                "type": "function",
                "function": {"name": n, "arguments": json.dumps(a)},
            }
            for i, (c, n, a) in enumerate(calls)
        ]
        prompt = len(json.dumps(body.get("messages"))) // 4 if self.counted else 100
        usage = {"prompt_tokens": prompt, "completion_tokens": 20, "total_tokens": prompt + 20}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if tool_calls:
                message["tool_calls"] = [
                    {k: v for k, v in t.items() if k != "index"} for t in tool_calls
                ]
            choice = {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
            }
            handler._json(
                200,
                {
                    "id": cid,
                    "object": "chat.completion",
                    "model": model,
                    "choices": [choice],
                    "usage": usage,
                },
            )
            return
        base = {"id": cid, "object": "chat.completion.chunk", "model": model}
        words = re.findall(r"\S+\s*|\s+", text) or [""]
        chunks = [
            {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
        ]
        chunks += [{**base, "choices": [{"index": 0, "delta": {"content": w}}]} for w in words]
        if tool_calls:
            chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": tool_calls}}]})
        finish = "tool_calls" if calls else "stop"
        chunks.append(
            {
                **base,
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": usage,
            }
        )
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for chunk in [*(f"data: {json.dumps(c)}\n\n" for c in chunks), "data: [DONE]\n\n"]:
            data = chunk.encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")


# ---------------------------------------------------------------- Gemini


class Gemini(FakeServer):
    """``POST …/models/<m>:generateContent`` and ``:streamGenerateContent?alt=sse`` (Gemini
    CLI): streamed a part a word, each event flushed as it is written. A request asking for a
    JSON answer (its routing classifier, its next-speaker check) gets one that fits; any
    other is answered by its last user text, as the other servers answer."""

    def answer(self, handler: Handler, body: dict[str, Any]) -> None:
        path = handler.path.split("?", 1)[0]
        if path.endswith(":countTokens"):
            handler._json(200, {"totalTokens": 100})
            return
        if not path.endswith((":generateContent", ":streamGenerateContent")):
            handler._json(404, {"error": {"code": 404, "message": "not found"}})
            return
        config = body.get("generationConfig") or {}
        if is_checkpoint_turn(body):
            text, calls = checkpoint_reply("gemini", body)
        elif config.get("responseJsonSchema") or config.get("responseMimeType"):
            text, calls = json.dumps(_json_answer(config)), []
        else:
            users = [c for c in dicts_of(body.get("contents")) if c.get("role") == "user"]
            parts = dicts_of(users[-1].get("parts")) if users else []
            # The person's words, not what a hook added beside them (Gemini CLI's hook context)
            texts = [str(p.get("text")) for p in parts if "text" in p]
            texts = [t for t in texts if not t.startswith("<hook_context>")] or texts
            text, calls = _reply_text(texts[-1] if texts else "", None), []
            if any("functionResponse" in p for p in parts):
                text = "done: the folder is listed"
            elif texts and "[[big]]" in texts[-1]:  # a call near the window: it compresses next
                calls = [("call-big", "list_directory", {"dir_path": "."})]
                self._send(handler, path.endswith(":streamGenerateContent"), "", calls, 700_000)
                return
            elif texts and "[[missing]]" in texts[-1]:  # a call that fails: no such file
                calls = [("call-missing", "read_file", {"file_path": "missing.txt"})]
                self._send(handler, path.endswith(":streamGenerateContent"), "", calls)
                return
            elif texts and "[[wide]]" in texts[-1]:  # a long context, below its compression
                self._send(handler, path.endswith(":streamGenerateContent"), text, [], 50_000)
                return
        self._send(handler, path.endswith(":streamGenerateContent"), text, calls)

    def _send(
        self, handler: Handler, streamed: bool, text: str, calls: list, tokens: int = 100
    ) -> None:
        usage = {"promptTokenCount": tokens, "candidatesTokenCount": 20, "totalTokenCount": tokens}
        parts: list[dict[str, Any]] = [{"text": w} for w in re.findall(r"\S+\s*|\s+", text)]
        parts += [{"functionCall": {"id": c, "name": n, "args": a}} for c, n, a in calls]
        if not streamed:
            content = {"role": "model", "parts": parts or [{"text": ""}]}
            candidate = {"content": content, "finishReason": "STOP", "index": 0}
            handler._json(200, {"candidates": [candidate], "usageMetadata": usage})
            return
        events = [
            {"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}]}
            for p in parts
        ]
        events = events or [
            {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}]}
        ]
        events[-1]["candidates"][0]["finishReason"] = "STOP"
        events[-1]["usageMetadata"] = usage
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for event in events:
            data = f"data: {json.dumps(event)}\r\n\r\n".encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")


def _json_answer(config: dict[str, Any]) -> dict[str, Any]:
    """A JSON answer that fits the schema a side request asks for (its required fields)."""
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    answer: dict[str, Any] = {}
    for name, spec in (schema.get("properties") or {}).items():
        kind = str((spec or {}).get("type", "string")).lower()
        answer[name] = (
            10 if kind in ("integer", "number") else (False if kind == "boolean" else "user")
        )
    return answer


def bodies(server: Any) -> list[dict[str, Any]]:
    """Every request body a fake server got, in order."""
    return [e.get("body") or {} for e in server.log.entries if e["method"] == "POST"]


def said_to(server: Any) -> list[str]:
    """Every request body a fake server got, its texts joined (newlines as they were)."""
    return ["\n".join(strings_of(body)) for body in bodies(server)]
