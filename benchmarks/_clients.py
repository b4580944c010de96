"""The zoo's session as the pinned clients carry it, compacted by the client: what it keeps.

The session of tests/context/zoo.py (the mission, the constraint and a harness order said
first, then typed messages with five tool rounds each) is rendered in each client's wire
shape, one request per model reply: Claude Code 2.1.197 over the Anthropic Messages API
(the harness order in a ``<system-reminder>`` block, tool results in user messages), Codex
0.171 over the Responses API (the harness order in a developer message, function calls and
their outputs as items). When the next request would pass the 32k window's threshold, the
client sends its compaction request: the conversation, ended with the compaction prompt of
its real request (tests/fixtures/proxy). What it keeps then replaces its conversation:

- Claude Code: its "This session is being continued ..." message with the text inside
  ``<summary>`` (its path to the transcript left out);
- Codex: the person's messages as they were, then its summary item (the handoff prefix and
  the whole text of the reply).

A compaction is answered either by the simulated free-text summariser (``own``: the
compaction goes to the model unchanged; no real model is asked), or by a real ``vybe proxy``
in front of a fake upstream on 127.0.0.1 (``through_proxy``): every request of the session
goes through it, so its record holds the session, and the compaction is answered with
vybe's checkpoint, its checkpoint turn answered upstream by the offline Consolidator. A
compaction the proxy relays (its checkpoint failed) gets the simulated summary too.
"""

from __future__ import annotations

import http.client
import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from tests.context import zoo
from tests.fakes.brain import serve
from tests.fakes.servers import FakeServer, Received, Response, anthropic_reply, responses_reply
from tests.proxy.conftest import Recorded
from tests.proxy.test_compaction import CLIENTS, PINNED, codex_input, real_request, text_of
from tests.proxy.test_record import HEADERS, result, said, user

from vybe.agent.offline import Consolidator
from vybe.context.budget import compute, estimate
from vybe.llm.base import ToolCall
from vybe.proxy import compaction, inputs, wire

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

    def __init__(self) -> None:
        self.captured = real_request(self.key)
        self.path = self.captured["path"]
        self.name = {"claude": "Claude Code", "codex": "Codex"}[self.key]
        self.version = PINNED[CLIENTS[self.key]]
        self.conversation: list[dict[str, Any]] = []
        self.sizes: dict[int, int] = {}  # each message's tokens, by id: estimated once

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
        self.conversation, self.sizes = conversation, {}

    def summary_in(self, text: str) -> str:
        """The summary a kept message carries."""
        return text.split(self.KEPT, 1)[-1]


class Claude(Client):
    """Claude Code: its compaction prompt is the last block of the last user message; it
    keeps one message, its wrapper around the text inside ``<summary>``."""

    key, api, KEPT, listed = compaction.CLAUDE, wire.ANTHROPIC, CLAUDE_KEPT, "messages"
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


def request_tokens(api: str, body: dict[str, Any]) -> int:
    """A request's size: its system prompt and every message of its conversation."""
    texts = [i.text for i in inputs.items_of(api, body)]
    return estimate(zoo.SYSTEM) + sum(estimate(t) for t in texts)


def simulated(client: Claude | Codex, body: dict[str, Any], summarise: Summariser) -> str:
    """The simulated model's reply to a compaction request: the summary it finds in the
    conversation (the client's kept message), revised with what came after it."""
    items = inputs.items_of(client.api, compaction.without_prompt(client.key, body))
    last = max((i for i, item in enumerate(items) if item.label == SUMMARISED), default=-1)
    previous = client.summary_in(items[last].text).splitlines() if last >= 0 else []
    return client.answered(summarise(previous, [item.text for item in items[last + 1 :]]))


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

    def __init__(self, client: Claude | Codex, summarise: Summariser) -> None:
        self.client, self.summarise = client, summarise

    def compact(self, body: dict[str, Any]) -> str:
        return simulated(self.client, body, self.summarise)

    def send(self, body: dict[str, Any], reply: Reply) -> None:
        """The session's own replies are scripted: no model is asked."""

    def accepted(self, taken: int) -> str:
        return f"{taken}/{taken}"

    def close(self) -> None:
        pass


class Proxied(Own):
    """Every request goes through a real ``vybe proxy`` (recording into a store in
    ``folder``) to a fake upstream: it answers with the session's scripted reply, vybe's
    checkpoint turn with the offline Consolidator, a relayed compaction as ``Own`` does."""

    def __init__(self, client: Claude | Codex, summarise: Summariser, folder: str) -> None:
        super().__init__(client, summarise)
        self.reply: tuple[Reply, int] | None = None  # the next turn's, and its request's size
        self.brain = serve(
            Consolidator(), "anthropic" if client.api == wire.ANTHROPIC else "responses"
        )
        # Kept-alive connections, as the clients and the real APIs keep them.
        self.upstream = FakeServer(self.respond, keep_alive=True).__enter__()
        self.proxy = Recorded(str(Path(folder) / "vybe.db"), self.upstream.url)
        self.session = wire.session_of(client.api, {}, client.body())
        host, port = self.proxy.url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)

    def respond(self, received: Received) -> Response:
        """The scripted reply to a turn; during a compaction, the Consolidator's to vybe's
        checkpoint turn, the simulated summary to a compaction the proxy relayed."""
        api, body = self.client.api, received.body
        if self.reply is None and compaction.client_of(api, received.path, body):
            text, calls, size = super().compact(body), (), request_tokens(api, body)
        elif self.reply is None:
            return self.brain(received)
        else:
            (text, calls), size = self.reply
        made = anthropic_reply if api == wire.ANTHROPIC else responses_reply
        return made(text, [(c.id, c.name, c.arguments) for c in calls], (size, estimate(text), 0))

    def ask(self, body: dict[str, Any]) -> str:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", **self.client.headers}
        self.connection.request("POST", self.client.path, data, headers)
        return text_of(self.client.api, self.connection.getresponse().read())

    def compact(self, body: dict[str, Any]) -> str:
        return self.ask(body)

    def send(self, body: dict[str, Any], reply: Reply) -> None:
        self.reply = (reply, self.client.tokens())
        try:
            self.ask(body)
        finally:
            self.reply = None

    def accepted(self, taken: int) -> str:
        attempts = self.proxy.record.attempts(str(self.session))
        return f"{sum(a.outcome == 'accepted' for a in attempts)}/{taken}"

    def close(self) -> None:
        self.connection.close()
        self.proxy.close()
        self.upstream.__exit__(None, None, None)


def compactions(
    client: Claude | Codex, sizes: tuple[int, ...], summarise: Summariser, through_proxy: bool
) -> dict[int, Kept]:
    """The session until ``max(sizes)`` compactions; what was kept after each of ``sizes``."""
    threshold = compute(zoo.LIMITS).threshold
    said: list[str] = []
    kept: dict[int, Kept] = {}
    with tempfile.TemporaryDirectory() as folder:
        route = Proxied(client, summarise, folder) if through_proxy else Own(client, summarise)
        try:
            for given, reply in steps():
                client.add(given)
                said += [what for kind, what in given if kind == "user"]
                if client.tokens() >= threshold:
                    held = client.keep(route.compact(client.compaction()))
                    taken = len(kept) + 1
                    kept[taken] = Kept(held, client.tokens(), list(said), route.accepted(taken))
                    if taken == max(sizes):
                        return {n: kept[n] for n in sizes}
                route.send(client.body(), reply)
                client.reply(*reply)
        finally:
            route.close()
    raise AssertionError("the session's steps never end")
