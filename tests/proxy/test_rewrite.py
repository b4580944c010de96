"""Rewrite mode (--checkpoints): a client that never compacts sends its whole history every
turn; the proxy records what is new and sends upstream the engine's rebuild, checkpointed
against the same upstream when it would pass the threshold, so every upstream request stays
under the window; the prefix the client resends is never recorded again."""

from __future__ import annotations

import gc
import json

import pytest

from tests.fakes.brain import serve
from tests.fakes.servers import FakeServer
from tests.proxy.talk import close_opened, post
from tests.proxy.test_compaction import settled_open_files
from vybe.agent.offline import Consolidator
from vybe.context.protocol import RECOLLECTION_OPEN, REQUEST_OPEN
from vybe.proxy.rewrite import Rewriter

WINDOW = 16_000
MISSION = "Mission: keep the parser's output byte for byte. Never touch tests/fixtures/."
PASTE = "log line of the build output, nothing to keep here. " * 40  # about 500 tokens


def chat_turns(proxy, turns: int) -> list[dict]:
    """A Chat Completions client that keeps and resends its whole history."""
    history = [{"role": "system", "content": "You are a careful coding agent."}]
    for n in range(turns):
        words = MISSION if n == 0 else f"step {n}: look at this.\n{PASTE}"
        history.append({"role": "user", "content": words})
        body = {"model": "local-model", "messages": history, "max_tokens": 500}
        _, response = post(proxy.url, "/v1/chat/completions", body, {"x-vybe-session": "long"})
        assert response.status == 200
        answer = json.loads(response.read())["choices"][0]["message"]
        history.append({"role": "assistant", "content": answer["content"] or ""})
    return history


def test_every_upstream_request_stays_under_the_window_and_inputs_are_recorded_once(recorded):
    brain = Consolidator()
    with FakeServer(serve(brain, "openai")) as upstream:
        proxy = recorded(upstream.url, Rewriter(WINDOW))
        history = chat_turns(proxy, 48)
        rows = proxy.rows("proxy:long", 96)
    sent = [p.body for p in upstream.posts]
    turns = [b for b in sent if REQUEST_OPEN in json.dumps(b)]
    normal = [b for b in sent if REQUEST_OPEN not in json.dumps(b)]
    assert len(json.dumps(history)) // 4 > 1.5 * WINDOW  # the history outgrew the window
    assert turns, "no checkpoint turn ran"
    assert all(len(json.dumps(b["messages"])) // 4 < WINDOW for b in normal)
    late = json.dumps(normal[-1])
    assert RECOLLECTION_OPEN in late and MISSION in late
    assert normal[-1]["messages"][0] == {
        "role": "system",
        "content": "You are a careful coding agent.",
    }
    typed = [r.text for r in rows if r.type == "user"]
    assert typed[0] == MISSION and len(typed) == 48 == len(set(typed))


def responses_turns(proxy, turns: int) -> list[dict]:
    """A Responses client (stateless, store off) that resends its whole input every turn."""
    items: list[dict] = []
    for n in range(turns):
        words = MISSION if n == 0 else f"step {n}: look at this.\n{PASTE}"
        items.append({"type": "message", "role": "user", "content": words})
        body = {"model": "local-model", "instructions": "Be careful.", "input": items}
        _, response = post(proxy.url, "/v1/responses", body, {"x-vybe-session": "resp"})
        assert response.status == 200
        output = json.loads(response.read())["output"]
        items += [i for i in output if i.get("type") == "message"]
    return items


def anthropic_turns(proxy, turns: int) -> list[dict]:
    """A Messages client that keeps and resends its whole history."""
    history: list[dict] = []
    for n in range(turns):
        words = MISSION if n == 0 else f"step {n}: look at this.\n{PASTE}"
        history.append({"role": "user", "content": [{"type": "text", "text": words}]})
        body = {"model": "local-model", "system": "Be careful.", "messages": history}
        body["max_tokens"] = 500
        _, response = post(proxy.url, "/v1/messages", body, {"x-vybe-session": "msgs"})
        assert response.status == 200
        history.append({"role": "assistant", "content": json.loads(response.read())["content"]})
    return history


@pytest.mark.parametrize(
    ("wire", "drive", "session", "field"),
    [
        ("responses", responses_turns, "proxy:resp", "input"),
        ("anthropic", anthropic_turns, "proxy:msgs", "messages"),
    ],
)
def test_rewrite_mode_keeps_responses_and_messages_clients_inside_the_window(
    recorded, wire, drive, session, field
):
    with FakeServer(serve(Consolidator(), wire)) as upstream:
        proxy = recorded(upstream.url, Rewriter(WINDOW))
        history = drive(proxy, 48)
        rows = proxy.rows(session, 96)
    sent = [p.body for p in upstream.posts]
    normal = [b for b in sent if REQUEST_OPEN not in json.dumps(b)]
    assert len(json.dumps(history)) // 4 > 1.5 * WINDOW
    assert len(sent) > len(normal) == 48  # checkpoint turns ran
    assert all(len(json.dumps(b[field])) // 4 < WINDOW for b in normal)
    assert MISSION in json.dumps(normal[-1]) and RECOLLECTION_OPEN in json.dumps(normal[-1])
    typed = [r.text for r in rows if r.type == "user"]
    assert typed[0] == MISSION and len(typed) == 48 == len(set(typed))


def test_rewrite_modes_checkpoint_turns_leave_no_connection_to_a_keep_alive_upstream_open(
    recorded,
):
    """Each request rewrite mode rebuilds may run a checkpoint turn upstream; its connection
    is closed by the proxy, not left to the garbage collector, against an upstream that keeps
    connections open and answers whole: 48 turns leave the process's open files as they
    were."""
    with FakeServer(serve(Consolidator(), "openai"), streams=False, keep_alive=True) as upstream:
        proxy = recorded(upstream.url, Rewriter(WINDOW))
        gc.disable()
        try:
            before = settled_open_files()
            chat_turns(proxy, 48)
            close_opened()  # the client's connections, and the proxy's handlers with them
            after = settled_open_files()
        finally:
            gc.enable()
        turns = [p for p in upstream.posts if REQUEST_OPEN in json.dumps(p.body)]
    assert turns, "no checkpoint turn ran"
    assert after == before
