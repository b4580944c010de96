"""The zoo's session as the pinned clients carry it, compacted by the client: what it keeps.

The session of tests/context/zoo.py (the mission, the constraint and a harness order said
first, then typed messages with five tool rounds each) is rendered in each client's wire
shape (its captured requests in tests/fixtures/proxy), one request per model reply, or for
Aider one per turn: Claude Code 2.1.197 over the Anthropic Messages API, Codex 0.171 over
the Responses API, Gemini CLI 0.61 on the Gemini wire, OpenCode 1.18.33 with its anthropic
provider, Aider 0.86.2 over Chat Completions. Each compacts by its own rule, sending its own
compaction request (each class says what it sends and keeps), and what it keeps replaces its
conversation.

A compaction is answered either by the simulated free-text summariser (``own``: the
compaction goes to the model unchanged; no real model is asked), or by a real ``vybe proxy``
in front of a fake upstream on 127.0.0.1 (``through_proxy``): every request of the session
goes through it on one kept-alive connection, so its record holds the session, and the
compaction is answered with vybe's checkpoint, its checkpoint turn answered upstream by the
offline Consolidator. A compaction the proxy relays (its checkpoint failed) gets the
simulated summary too.
"""

from __future__ import annotations

import http.client
import json
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from tests.context import zoo
from tests.fakes.brain import gemini_reply, serve
from tests.fakes.servers import (
    FakeServer,
    Received,
    Response,
    anthropic_reply,
    openai_reply,
    responses_reply,
)
from tests.proxy.conftest import Recorded
from tests.proxy.test_compaction import FIXTURES, PINNED, codex_input, text_of
from tests.proxy.test_record import HEADERS, result, said, user

from vybe.agent.offline import Consolidator
from vybe.context.budget import compute, estimate
from vybe.llm.base import ToolCall
from vybe.proxy import compaction, inputs, scaffolding, wire

CLAUDE_KEPT = (
    "This session is being continued from a previous conversation that ran out of context."
    " The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
)
CODEX_KEPT = (
    "Another language model started to solve this problem and produced a summary of its"
    " thinking process. You also have access to the state of the tools that were used by"
    " that language model. Use this to build on the work that has already been done and"
    " avoid duplicating work. Here is the summary produced by the other language model, use"
    " the information in this summary to assist with your own analysis:\n"
)
SUMMARISED = "compaction summary"  # how vybe.proxy.inputs labels a kept summary
PACKAGES = {
    compaction.CLAUDE: "@anthropic-ai/claude-code",
    compaction.CODEX: "@openai/codex",
    compaction.GEMINI: "@google/gemini-cli",
    compaction.OPENCODE: "opencode-ai",
}
Summariser = Callable[[list[str], list[str]], list[str]]  # (previous lines, texts) -> lines
Input = tuple[str, Any]  # ("user" | "harness", text) or ("tool", (call, output))
Reply = tuple[str, tuple[ToolCall, ...]]  # a scripted reply's text and calls


def steps() -> Iterator[tuple[list[Input], Reply]]:
    """The zoo's session, one model reply at a time: the inputs before it, and the reply."""
    yield [("user", zoo.MISSION)], (zoo.PLAN, ())
    yield [("user", zoo.CONSTRAINT), ("harness", zoo.HARNESS_ORDER)], (zoo.WAITING, ())
    n = 0
    while True:
        pending: list[Input] = [("user", zoo.typed(n))]
        for r in range(5):
            call = zoo.read_call(n, r)
            yield pending, ("", (call,))
            pending = [("tool", (call, zoo.read_output(r)))]
        yield pending, (zoo.done(n), ())
        n += 1


class Client:
    """One client's conversation, as its requests carry it."""

    key: str
    api: str
    KEPT: str  # how the message that carries a kept summary starts
    listed: str  # the body's field that holds the conversation
    headers: ClassVar[dict[str, str]]  # the credentials it sends (the proxy passes them on)

    kind = "compact"  # which of its captured requests (tests/fixtures/proxy) is its compaction
    name: str

    def __init__(self) -> None:
        self.version = self.pinned()
        self.captured = self.request(self.kind)
        self.path = self.captured["path"]
        self.conversation: list[dict[str, Any]] = []
        self.sizes: dict[int, int] = {}  # each message's tokens, by id: estimated once
        self.encoded: dict[int, str] = {}  # each message's JSON, by id: encoded once

    def pinned(self) -> str:
        """The version package.json pins."""
        return str(PINNED[PACKAGES[self.key]])

    def request(self, kind: str) -> dict[str, Any]:
        """The pinned version's captured request of that kind (tests/fixtures/proxy)."""
        found = FIXTURES / f"{self.key}-{self.version}-{kind}.json"
        assert found.exists(), f"no captured {kind} request of {self.key} {self.version}"
        loaded: dict[str, Any] = json.loads(found.read_text())
        return loaded

    def threshold(self) -> int:
        """The size of the next request at which the client compacts (Claude Code and Codex:
        where vybe would, in the 32k window)."""
        return compute(zoo.LIMITS).threshold

    def due(self) -> bool:
        """Whether it compacts before its next request."""
        return self.tokens() >= self.threshold()

    def steps(self) -> Iterator[tuple[list[Input], Reply]]:
        return steps()

    @property
    def turn_path(self) -> str:
        """Where its turns go (its compaction may go elsewhere)."""
        return self.path

    def compact(self, route: Own) -> str:
        """Its compaction: the request (or requests) it sends, and what it keeps of the reply."""
        return self.keep(route.compact(self.compaction(), self.path))

    def summarised(self, body: dict[str, Any]) -> tuple[list[str], list[str]]:
        """What a compaction request holds: the lines of the summary kept before, and the
        texts of the conversation since."""
        items = inputs.items_of(self.api, compaction.without_prompt(self.key, body))
        last = max((i for i, item in enumerate(items) if item.label == SUMMARISED), default=-1)
        previous = self.summary_in(items[last].text).splitlines() if last >= 0 else []
        return previous, [item.text for item in items[last + 1 :]]

    def texts(self) -> str:
        """Every text of the conversation, as the next request carries it."""
        return "\n".join(i.text for i in inputs.items_of(self.api, self.body()))

    def tokens(self) -> int:
        """The next request's size, as the engine estimates it (``request_tokens``): each
        message of the conversation is estimated once, not again at every request."""
        for message in self.conversation:
            if id(message) not in self.sizes:
                self.sizes[id(message)] = self.sized(message)
        return estimate(zoo.SYSTEM) + sum(self.sizes[id(m)] for m in self.conversation)

    def sized(self, message: dict[str, Any]) -> int:
        return sum(estimate(i.text) for i in inputs.items_of(self.api, {self.listed: [message]}))

    def restart(self, conversation: list[dict[str, Any]]) -> None:
        """What the client keeps replaces its conversation."""
        self.conversation, self.sizes, self.encoded = conversation, {}, {}

    def data(self) -> bytes:
        """The next request's body as it is sent, each message encoded once (the
        conversation's field last)."""
        body = self.body()
        listed = body.pop(self.listed)
        if listed is not self.conversation:
            return json.dumps({**body, self.listed: listed}).encode()
        for message in listed:
            if id(message) not in self.encoded:
                self.encoded[id(message)] = json.dumps(message)
        head = json.dumps(body)[:-1] + (", " if body else "")
        parts = ", ".join(self.encoded[id(m)] for m in listed)
        return f'{head}"{self.listed}": [{parts}]}}'.encode()

    def summary_in(self, text: str) -> str:
        """The summary a kept message carries."""
        return text.split(self.KEPT, 1)[-1]


class Claude(Client):
    """Claude Code: its compaction prompt is the last block of the last user message; it
    keeps one message, its wrapper around the text inside ``<summary>``."""

    key, api, KEPT, listed = compaction.CLAUDE, wire.ANTHROPIC, CLAUDE_KEPT, "messages"
    name = "Claude Code"
    headers = HEADERS

    def body(self) -> dict[str, Any]:
        fields = {k: v for k, v in self.captured["body"].items() if k != "messages"}
        system = [{"type": "text", "text": zoo.SYSTEM}]
        return {**fields, "system": system, "messages": self.conversation}

    def add(self, given: list[Input]) -> None:
        blocks: list[Any] = []
        for kind, what in given:
            if kind == "tool":
                blocks.append(result(what[0].id, what[1]))
            else:
                blocks.append(
                    what if kind == "user" else f"<system-reminder>\n{what}\n</system-reminder>"
                )
        self.conversation.append(user(*blocks))

    def reply(self, text: str, calls: tuple[ToolCall, ...]) -> None:
        self.conversation.append(said(text, *((c.id, c.name, c.arguments) for c in calls)))

    def compaction(self) -> dict[str, Any]:
        prompt = self.captured["body"]["messages"][-1]["content"][-1]
        *before, last = self.conversation
        return {
            **self.body(),
            "messages": [*before, {**last, "content": [*last["content"], prompt]}],
        }

    def answered(self, lines: list[str]) -> str:
        summary = "\n".join(lines)
        return f"<analysis>\nLine by line.\n</analysis>\n\n<summary>\n{summary}\n</summary>"

    def keep(self, reply: str) -> str:
        kept = CLAUDE_KEPT + reply.split("<summary>", 1)[1].split("</summary>", 1)[0].strip()
        self.restart([user(kept)])
        return kept


class Codex(Client):
    """Codex: its compaction prompt is the last input item; it keeps the person's messages
    and a summary item, the handoff prefix and the whole reply."""

    key, api, KEPT, listed = compaction.CODEX, wire.RESPONSES, CODEX_KEPT, "input"
    name, kind = "Codex", "compaction"
    headers: ClassVar[dict[str, str]] = {"authorization": "Bearer sk-codex-fake"}

    def body(self, compacting: bool = False) -> dict[str, Any]:
        captured = self.captured["body"]
        fields = {k: v for k, v in captured.items() if k not in ("input", "client_metadata")}
        metadata = captured["client_metadata"]
        if not compacting:
            metadata = {"session_id": metadata["session_id"]}
        return {
            **fields,
            "client_metadata": metadata,
            "instructions": zoo.SYSTEM,
            "input": self.conversation,
        }

    def add(self, given: list[Input]) -> None:
        for kind, what in given:
            if kind == "tool":
                self.conversation.append(
                    {"type": "function_call_output", "call_id": what[0].id, "output": what[1]}
                )
            elif kind == "harness":
                self.conversation.append({**codex_input(what), "role": "developer"})
            else:
                self.conversation.append(codex_input(what))

    def reply(self, text: str, calls: tuple[ToolCall, ...]) -> None:
        if text:
            self.conversation.append(codex_input(text, "assistant"))
        for c in calls:
            call = {"type": "function_call", "call_id": c.id, "name": c.name}
            self.conversation.append({**call, "arguments": json.dumps(c.arguments)})

    def compaction(self) -> dict[str, Any]:
        body = self.body(compacting=True)
        return {**body, "input": [*self.conversation, self.captured["body"]["input"][-1]]}

    def answered(self, lines: list[str]) -> str:
        return "\n".join(lines)

    def keep(self, reply: str) -> str:
        typed = [i.text for i in inputs.items_of(self.api, self.body()) if i.kind == "user"]
        self.restart([*(codex_input(t) for t in typed), codex_input(CODEX_KEPT + reply)])
        return "\n".join([*typed, CODEX_KEPT + reply])


class Gemini(Client):
    """Gemini CLI: it compresses at half its window. Its compressor is sent the older part of
    the history (all but about its newest 30%, cut where a typed prompt starts), ended with
    its ask, then the same with the summary it got and the ask to check it; it keeps the
    checked summary as a user message, its canned "Got it." and the newer part as it was."""

    key, api, KEPT, listed = compaction.GEMINI, wire.GEMINI, "", "contents"
    name, kind = "Gemini CLI", "compress"
    headers: ClassVar[dict[str, str]] = {"x-goog-api-key": "gemini-fake-key"}
    ANCHOR = (
        "A previous <state_snapshot> exists in the history. You MUST integrate all"
        " still-relevant information from that snapshot into the new one, updating it with"
        " the more recent events. Do not lose established constraints or critical knowledge."
    )

    def __init__(self) -> None:
        super().__init__()
        self.turn = self.request("turn")
        self.verify = self.request("verify")
        self.split = 0

    def threshold(self) -> int:
        return zoo.LIMITS.window // 2  # DEFAULT_COMPRESSION_TOKEN_THRESHOLD, 0.5

    def body(self) -> dict[str, Any]:
        fields = {k: v for k, v in self.turn["body"].items() if k != "contents"}
        system = {"parts": [{"text": zoo.SYSTEM}]}
        return {**fields, "systemInstruction": system, "contents": self.conversation}

    @property
    def turn_path(self) -> str:
        return str(self.turn["path"])

    def add(self, given: list[Input]) -> None:
        parts: list[dict[str, Any]] = []
        for kind, what in given:
            if kind == "tool":
                call, output = what
                response = {"id": call.id, "name": call.name, "response": {"output": output}}
                parts.append({"functionResponse": response})
            else:  # a hook's context beside the prompt, as Gemini CLI adds it
                parts.append(
                    {"text": what if kind == "user" else f"<hook_context>{what}</hook_context>"}
                )
        self.conversation.append({"role": "user", "parts": parts})

    def reply(self, text: str, calls: tuple[ToolCall, ...]) -> None:
        parts: list[dict[str, Any]] = [{"text": text}] if text else []
        parts += [
            {"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}} for c in calls
        ]
        self.conversation.append({"role": "model", "parts": parts})

    def split_point(self) -> int:
        """findCompressSplitPoint(history, 0.7): the first typed prompt after 70% of the
        history's characters, else the last one before."""
        sizes = [len(json.dumps(c)) for c in self.conversation]
        target, at, last = sum(sizes) * 0.7, 0, 0
        for i, content in enumerate(self.conversation):
            if content["role"] == "user" and not any(
                "functionResponse" in p for p in content["parts"]
            ):
                if at >= target:
                    return i
                last = i
            at += sizes[i]
        return last

    def compaction(self) -> dict[str, Any]:
        self.split = self.split_point()
        older = self.conversation[: self.split]
        anchored = any("<state_snapshot>" in p.get("text", "") for c in older for p in c["parts"])
        lead = (
            self.ANCHOR
            if anchored
            else "Generate a new <state_snapshot> based on the provided history."
        )
        ask = f"{lead}\n\n{compaction.GEMINI_ASK}"
        asked = {"role": "user", "parts": [{"text": ask}]}
        return {**self.captured["body"], "contents": [*older, asked]}

    def compact(self, route: Own) -> str:
        asked = self.compaction()
        summary = route.compact(asked, self.path)
        check = [*asked["contents"][:-1], {"role": "model", "parts": [{"text": summary}]}]
        check.append(self.verify["body"]["contents"][-1])
        checked = route.compact({**asked, "contents": check}, self.path)
        return self.keep(checked.strip() or summary)

    def summarised(self, body: dict[str, Any]) -> tuple[list[str], list[str]]:
        contents = compaction.without_prompt(self.key, body)["contents"]
        items = inputs.items_of(self.api, {"contents": contents})
        kept = len(contents) > 1 and contents[1]["parts"] == [{"text": inputs.GEMINI_ACK}]
        if kept:  # the summary it kept, then (its canned reply is no item) the rest
            return items[0].text.splitlines(), [i.text for i in items[1:]]
        return [], [i.text for i in items]

    def answered(self, lines: list[str]) -> str:
        return "\n".join(lines)

    def keep(self, reply: str) -> str:
        summary = {"role": "user", "parts": [{"text": reply}]}
        thanks = {"role": "model", "parts": [{"text": inputs.GEMINI_ACK}]}
        self.restart([summary, thanks, *self.conversation[self.split :]])
        return self.texts()


PRIOR = "Here is the summary of the conversation before the <conversation> above:\n\n"


class OpenCode(Claude):
    """OpenCode with its ``anthropic`` provider (as ``vybe setup`` points it): Claude's
    wire, its own compaction. When the last reply's usage reaches its model's input limit
    (the window less its output), its summarization agent is sent the older turns as text
    (``[User]:`` / ``[Assistant]:`` / ``[Assistant tool call]:`` / ``[Tool result]:``, a
    result cut at 2,000 characters), and the summary before them as ``<prior-summary>``; it
    keeps "What did we do so far?" and the summary as its reply, the newest whole turns
    within a quarter of that limit as they were, and its synthetic "Continue if…"."""

    key, KEPT = compaction.OPENCODE, ""
    name, kind = "OpenCode", "compaction"
    RESULT_CUT = 2_000

    def __init__(self) -> None:
        super().__init__()
        chat = self.captured["body"]["messages"]
        self.summarizer = chat[0]["content"]
        self.first = chat[1]["content"].split("</conversation>\n\n", 1)[1]
        again = self.request("recompaction")["body"]["messages"][1]["content"]
        self.again = again.split("</prior-summary>\n\n", 1)[1]
        self.path = "/v1/messages"
        claude = Claude().captured["body"]
        self.model, self.recent = claude["model"], 0
        self.headers = {**HEADERS, **self.captured["headers"]}

    def usable(self) -> int:
        return zoo.LIMITS.window - zoo.LIMITS.max_output

    def threshold(self) -> int:
        return self.usable()

    def body(self) -> dict[str, Any]:
        system = [{"type": "text", "text": zoo.SYSTEM}]
        fields = {"model": self.model, "max_tokens": zoo.LIMITS.max_output, "stream": True}
        return {**fields, "system": system, "messages": self.conversation}

    def rendered(self, messages: list[dict[str, Any]]) -> list[str]:
        """The messages as its summarization agent reads them, one entry a message."""
        entries: list[str] = []
        for message in messages:
            blocks = message["content"]
            if isinstance(blocks, str):
                blocks = [{"type": "text", "text": blocks}]
            if message["role"] == "assistant":
                lines = [
                    f"[Assistant]: {b['text']}" for b in blocks if b["type"] == "text" and b["text"]
                ]
                lines += [
                    f"[Assistant tool call]: {b['name']}({json.dumps(b['input'])})"
                    for b in blocks
                    if b["type"] == "tool_use"
                ]
                entries.append("\n".join(lines))
                continue
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out = b["content"]
                    cut = (
                        out
                        if len(out) <= self.RESULT_CUT
                        else f"{out[: self.RESULT_CUT]}\n[truncated]"
                    )
                    entries[-1] += f"\n[Tool result]: {cut}"
            texts = [b["text"] for b in blocks if b.get("type") == "text"]
            if texts:
                entries.append("[User]: " + "\n".join(texts))
        return [e for e in entries if e]

    def compaction(self) -> dict[str, Any]:
        summary = self.summary()
        start = 2 if summary is not None else 0  # after its ask and the summary
        turns = [
            i
            for i, m in enumerate(self.conversation)
            if i >= start and m["role"] == "user" and self.typed_in(m)
        ]
        self.sized_all()
        budget, self.recent = self.usable() // 4, len(self.conversation)
        for i in reversed(turns):
            if sum(self.sizes[id(m)] for m in self.conversation[i:]) > budget:
                break
            self.recent = i
        head = self.conversation[start : self.recent]
        told = "\n\n".join(self.rendered(head))
        prompt = f"{compaction.OPENCODE_OPEN}{told}\n</conversation>\n\n"
        if summary is None:
            prompt += self.first
        else:
            prompt += f"{PRIOR}<prior-summary>\n{summary}\n</prior-summary>\n\n{self.again}"
        ask = {"role": "user", "content": [{"type": "text", "text": prompt}]}
        system = [{"type": "text", "text": self.summarizer}]
        return {
            "model": self.model,
            "max_tokens": 4096,
            "stream": True,
            "system": system,
            "messages": [ask],
        }

    @staticmethod
    def typed_in(message: dict[str, Any]) -> bool:
        """Whether a user message starts a turn (words, not only tool results)."""
        content = message["content"]
        return isinstance(content, str) or any(b.get("type") == "text" for b in content)

    def sized_all(self) -> None:
        for message in self.conversation:
            if id(message) not in self.sizes:
                self.sizes[id(message)] = self.sized(message)

    def summary(self) -> str | None:
        """The summary it kept, the reply to its "What did we do so far?"."""
        kept = self.conversation[:2]
        if len(kept) < 2 or kept[0]["content"] != scaffolding.OPENCODE_ASK:
            return None
        return "".join(b["text"] for b in kept[1]["content"] if b["type"] == "text")

    def summarised(self, body: dict[str, Any]) -> tuple[list[str], list[str]]:
        text = body["messages"][-1]["content"][0]["text"]
        told = text.split("<conversation>\n", 1)[1].split("\n</conversation>", 1)[0]
        prior = (
            text.split("<prior-summary>\n", 1)[1].split("\n</prior-summary>", 1)[0]
            if "<prior-summary>" in text
            else ""
        )
        entries = [e.split(": ", 1)[-1] for e in told.split("\n\n") if e]
        return prior.splitlines(), entries

    def answered(self, lines: list[str]) -> str:
        return "\n".join(lines)

    def keep(self, reply: str) -> str:
        asked = {"role": "user", "content": scaffolding.OPENCODE_ASK}
        summary = {"role": "assistant", "content": [{"type": "text", "text": reply}]}
        going = {"role": "user", "content": scaffolding.OPENCODE_CONTINUE}
        self.restart([asked, summary, *self.conversation[self.recent :], going])
        return self.texts()


class Aider(Client):
    """Aider over Chat Completions: no tool calls, so a turn is one request (its worked
    examples, repository map, the history, the files in the chat, the typed prompt with its
    reminder); the model's reads are shell commands in its reply, which Aider runs, adding
    their output (``Output from …``, answered by its canned "Ok"). Its harness has no way to
    add an order of its own (no hooks). After a turn, a history over its budget (a
    sixteenth of the window) is summarised by its weak model as ChatSummary does: the
    older part (all but the newest messages within half the budget, cut after a reply) sent
    as ``# USER`` / ``# ASSISTANT`` text, kept as one message (its prefix and the reply)
    before the newer part, and all of it again while still over the budget."""

    key, api, KEPT, listed = compaction.AIDER, wire.CHAT, scaffolding.SUMMARY, "messages"
    name, kind = "Aider", "summary"
    headers: ClassVar[dict[str, str]] = {"authorization": "Bearer sk-aider-fake"}

    def __init__(self) -> None:
        super().__init__()
        turn = self.request("edited")["body"]
        self.model, messages = turn["model"], turn["messages"]
        self.system, self.fixed, self.files = messages[0], messages[1:7], messages[-3:-1]
        self.reminder = messages[-1]["content"].split("\n\n", 1)[1]
        self.budget = zoo.LIMITS.window // 16  # max_chat_history_tokens
        self.done: list[dict[str, Any]] = []
        self.moved = False
        self.ran: list[str] = []  # the commands of the reply to come

    def pinned(self) -> str:
        """The version e2e/python-clients.txt pins."""
        pins = (FIXTURES.parents[2] / "e2e" / "python-clients.txt").read_text().split()
        return next(w.split("==")[1] for w in pins if w.startswith("aider-chat=="))

    def tokens(self) -> int:
        """Its next request, its fixed scaffolding too (one request a turn)."""
        return request_tokens(self.api, self.body())

    def steps(self) -> Iterator[tuple[list[Input], Reply]]:
        """The zoo's session a turn a request: its five reads, as the commands of the one
        reply (in ``bash`` blocks, before its text)."""
        yield [("user", zoo.MISSION)], (zoo.PLAN, ())
        yield [("user", zoo.CONSTRAINT)], (zoo.WAITING, ())
        n = 0
        while True:
            self.ran = [f"cat {zoo.read_call(n, r).arguments['path']}" for r in range(5)]
            blocks = "".join(f"```bash\n{c}\n```\n\n" for c in self.ran)
            yield [("user", zoo.typed(n))], (blocks + zoo.done(n), ())
            n += 1

    def body(self) -> dict[str, Any]:
        *before, last = self.conversation
        prompt = {**last, "content": f"{last['content']}\n\n{self.reminder}"}
        messages = [self.system, *self.fixed, *before, *self.files, prompt]
        return {"model": self.model, "stream": True, "temperature": 0, "messages": messages}

    def add(self, given: list[Input]) -> None:
        """A typed prompt after the turn before moved into the history."""
        self.done, self.moved = self.conversation, True
        typed = [what for kind, what in given if kind == "user"]
        self.restart([*self.done, {"role": "user", "content": "\n".join(typed)}])

    def reply(self, text: str, calls: tuple[ToolCall, ...]) -> None:
        """The reply, then the output of its commands, which it ran (run_shell_commands)."""
        self.conversation.append({"role": "assistant", "content": text})
        ran = [f"Output from {c}\n{zoo.read_output(r)}\n\n\n" for r, c in enumerate(self.ran)]
        if ran:
            self.conversation.append({"role": "user", "content": "".join(ran)})
            self.conversation.append({"role": "assistant", "content": scaffolding.COMMAND_ACK})
        self.ran = []

    def size(self, messages: list[dict[str, Any]]) -> int:
        return sum(estimate(m["content"]) for m in messages)

    def due(self) -> bool:
        moved, self.moved = self.moved, False
        return moved and self.size(self.done) > self.budget

    def compact(self, route: Own) -> str:
        latest = self.conversation[len(self.done) :]
        summarised = self.summarise(route, self.done)
        if summarised[-1]["role"] != "assistant":
            summarised.append({"role": "assistant", "content": "Ok."})
        self.done = summarised
        self.restart([*summarised, *latest])
        return self.texts()

    def summarise(self, route: Own, messages: list[dict[str, Any]], depth: int = 0) -> list[Any]:
        """ChatSummary.summarize_real."""
        if len(messages) <= 4 or depth > 3:
            return self.summary(route, messages)
        split, tail = len(messages), 0
        for i in range(len(messages) - 1, -1, -1):
            if tail + self.size([messages[i]]) >= self.budget // 2:
                break
            tail, split = tail + self.size([messages[i]]), i
        while messages[split - 1]["role"] != "assistant" and split > 1:
            split -= 1
        if split <= 4:
            return self.summary(route, messages)
        done = self.summary(route, messages[:split]) + messages[split:]
        if self.size(done) < self.budget:
            return done
        return self.summarise(route, done, depth + 1)

    def summary(self, route: Own, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """ChatSummary.summarize_all: one request to its weak model."""
        told = ""
        for message in messages:
            told += f"# {message['role'].upper()}\n{message['content']}"
            told += "" if told.endswith("\n") else "\n"
        asked = [self.captured["body"]["messages"][0], {"role": "user", "content": told}]
        body = {"model": self.model, "messages": asked, "temperature": 0}
        return [{"role": "user", "content": scaffolding.SUMMARY + route.compact(body, self.path)}]

    def summarised(self, body: dict[str, Any]) -> tuple[list[str], list[str]]:
        told = body["messages"][1]["content"]
        sections = re.split(r"(?m)^# (?:USER|ASSISTANT)\n", told)[1:]
        lead = sections[0] if sections else ""
        previous = lead.removeprefix(self.KEPT).splitlines() if lead.startswith(self.KEPT) else []
        return previous, sections[1:] if previous else sections

    def answered(self, lines: list[str]) -> str:
        return "\n".join(lines)


def request_tokens(api: str, body: dict[str, Any]) -> int:
    """A request's size: its system prompt and every message of its conversation."""
    texts = [i.text for i in inputs.items_of(api, body)]
    return estimate(zoo.SYSTEM) + sum(estimate(t) for t in texts)


def simulated(client: Client, body: dict[str, Any], summarise: Summariser) -> str:
    """The simulated model's reply to a compaction request: the summary it finds in the
    conversation (the client's kept message), revised with what came after it."""
    previous, texts = client.summarised(body)
    return client.answered(summarise(previous, texts))


@dataclass
class Kept:
    """What the client kept after a compaction (and the next request's tokens), what the
    person had said by then, and how many compactions so far were answered: by the model
    (all of them), or through the proxy by an accepted checkpoint."""

    text: str
    tokens: int
    said: list[str]
    accepted: str


class Own:
    """Each compaction goes to the model unchanged: the simulated summariser answers it."""

    def __init__(self, client: Client, summarise: Summariser) -> None:
        self.client, self.summarise = client, summarise

    def compact(self, body: dict[str, Any], path: str) -> str:
        return simulated(self.client, body, self.summarise)

    def send(self, reply: Reply) -> None:
        """The session's own replies are scripted: no model is asked."""

    def accepted(self, taken: int) -> str:
        return f"{taken}/{taken}"

    def close(self) -> None:
        pass


BRAINS = {
    wire.ANTHROPIC: "anthropic",
    wire.RESPONSES: "responses",
    wire.GEMINI: "gemini",
    wire.CHAT: "openai",
}


class Proxied(Own):
    """Every request goes through a real ``vybe proxy`` (recording into a store in
    ``folder``) to a fake upstream: it answers with the session's scripted reply, vybe's
    checkpoint turn with the offline Consolidator, a relayed compaction as ``Own`` does."""

    def __init__(self, client: Client, summarise: Summariser, folder: str) -> None:
        super().__init__(client, summarise)
        self.reply: tuple[Reply, int] | None = None  # the next turn's, and its request's size
        self.brain = serve(Consolidator(), BRAINS[client.api])
        # Kept-alive connections, as the clients and the real APIs keep them; a reply's text
        # streamed in deltas of 400 characters (as vybe's own answer), not 3.
        self.upstream = FakeServer(self.respond, keep_alive=True, piece=400).__enter__()
        self.proxy = Recorded(str(Path(folder) / "vybe.db"), self.upstream.url)
        self.session = ""
        host, port = self.proxy.url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)

    def respond(self, received: Received) -> Response:
        """The scripted reply to a turn; during a compaction, the Consolidator's to vybe's
        checkpoint turn, the simulated summary to a compaction the proxy relayed."""
        api, body = self.client.api, received.body
        if self.reply is None and compaction.client_of(api, received.path, body):
            text, calls, size = simulated(self.client, body, self.summarise), (), 0
        elif self.reply is None:
            return self.brain(received)
        else:
            (text, calls), size = self.reply
        listed = [(c.id, c.name, c.arguments) for c in calls]
        if api == wire.GEMINI:
            reply = gemini_reply(text, listed, (size, estimate(text), 0))
            return Response(events=[f"data: {json.dumps(reply.body)}\r\n\r\n"])
        made = {wire.ANTHROPIC: anthropic_reply, wire.CHAT: openai_reply}.get(api, responses_reply)
        return made(text, listed, (size, estimate(text), 0))

    def ask(self, body: dict[str, Any] | bytes, path: str) -> str:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"Content-Type": "application/json", **self.client.headers}
        self.connection.request("POST", path, data, headers)
        return text_of(self.client.api, self.connection.getresponse().read())

    def compact(self, body: dict[str, Any], path: str) -> str:
        return self.ask(body, path)

    def send(self, reply: Reply) -> None:
        body = self.client.body()
        self.session = self.session or wire.session_of(self.client.api, self.client.headers, body)
        self.reply = (reply, self.client.tokens())
        try:
            self.ask(self.client.data(), self.client.turn_path)
        finally:
            self.reply = None

    def accepted(self, taken: int) -> str:
        """Checkpoints accepted of those attempted (one a compaction; Aider's summary may
        ask twice)."""
        attempts = self.proxy.record.attempts(self.session)
        return f"{sum(a.outcome == 'accepted' for a in attempts)}/{len(attempts)}"

    def close(self) -> None:
        self.connection.close()
        self.proxy.close()
        self.upstream.__exit__(None, None, None)


def compactions(
    client: Client, sizes: tuple[int, ...], summarise: Summariser, through_proxy: bool
) -> dict[int, Kept]:
    """The session until ``max(sizes)`` compactions; what was kept after each of ``sizes``."""
    said: list[str] = []
    kept: dict[int, Kept] = {}
    with tempfile.TemporaryDirectory() as folder:
        route = Proxied(client, summarise, folder) if through_proxy else Own(client, summarise)
        try:
            for given, reply in client.steps():
                client.add(given)
                said += [what for kind, what in given if kind == "user"]
                if client.due():
                    held = client.compact(route)
                    taken = len(kept) + 1
                    kept[taken] = Kept(held, client.tokens(), list(said), route.accepted(taken))
                    if taken == max(sizes):
                        return {n: kept[n] for n in sizes}
                route.send(reply)
                client.reply(*reply)
        finally:
            route.close()
    raise AssertionError("the session's steps never end")
