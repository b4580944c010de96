"""The planted secrets and a private span pushed through the entry paths beyond the hooks: a
real Codex rollout import, `vybe proxy` on each of its three wires (Anthropic Messages, OpenAI
Responses and Chat Completions, Gemini) in front of a fake upstream on 127.0.0.1, and `vybe mcp`
driven by the official SDK's client. The upstream still receives every word; the raw bytes of
the SQLite files, or a ``pg_dump`` of the PostgreSQL store, hold none of the secrets nor
the span."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from pathlib import Path

from tests.conftest import TRANSCRIPTS, VYBE
from tests.fakes.servers import (
    FakeServer,
    Response,
    anthropic_reply,
    openai_reply,
    responses_reply,
    scripted,
)
from tests.privacy.planted import needles, planted
from tests.privacy.test_planted_secrets import PRIVATE, home_bytes, store_bytes, where, words
from tests.proxy import conftest as proxy_fixtures
from tests.proxy.talk import close_opened, post
from tests.proxy.test_gemini import captured, gemini_event
from tests.proxy.test_record import CLAUDE, HEADERS, claude_body, user

recorded = proxy_fixtures.recorded  # the proxy tests' fixture, used here too
ROLLOUT = TRANSCRIPTS / "codex-codemie-code-019e1625-v0.125.jsonl"


def assert_clean(vybe, found: bytes) -> None:
    """No planted secret nor the private span is in ``found``; the words around them are."""
    assert b"please look at these" in found
    for shape, secret, _ in planted():
        for needle in needles(secret):
            assert needle.encode() not in found, (shape, where(vybe, needle))
    assert PRIVATE.encode() not in found


def carried(received: bytes, secrets: list[tuple[str, str, str]] | None = None) -> None:
    """What the upstream received holds every secret sent (all planted) and the private span."""
    for shape, secret, _ in planted() if secrets is None else secrets:
        assert json.dumps(secret)[1:-1].encode() in received, shape
    assert PRIVATE.encode() in received


def rollout_with(tmp_path: Path, text: str) -> Path:
    """The real Codex rollout with its first typed prompt's words replaced."""
    lines = ROLLOUT.read_text().splitlines()
    for index, line in enumerate(lines):
        entry = json.loads(line)
        payload = entry.get("payload", {})
        if entry["type"] == "event_msg" and payload.get("type") == "user_message":
            payload["message"] = text
            lines[index] = json.dumps(entry)
            break
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_codex_rollout_import_writes_no_planted_secret(vybe, tmp_path):
    rollout = rollout_with(tmp_path, words(planted()))
    vybe.ok("session", "import", "--codex", str(rollout))
    typed = vybe.sql("SELECT content_text FROM messages WHERE type = 'user'")
    assert any("please look at these" in text for (text,) in typed)
    assert_clean(vybe, store_bytes(vybe) + home_bytes(vybe, rollout))


def test_the_proxy_on_each_wire_relays_the_secrets_and_records_none(vybe, recorded):
    """Both ways: the person's words to the model, and the model's reply (which may repeat
    what it was shown)."""
    text = words(planted())
    said = words(planted()[::2])
    gemini = captured("turn")
    gemini["body"]["contents"][-1]["parts"][0]["text"] = text
    typed = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    wires = [
        (anthropic_reply(said), "/v1/messages", claude_body([user(text)], stream=False), HEADERS),
        (
            responses_reply(said),
            "/v1/responses",
            {"model": "m", "stream": True, "input": [typed], "prompt_cache_key": "t-9"},
            {},
        ),
        (
            openai_reply(said),
            "/v1/chat/completions",
            {"model": "m", "stream": True, "messages": [{"role": "user", "content": text}]},
            {"x-vybe-session": "mine"},
        ),
        (
            Response(events=[gemini_event(said, last=True)]),
            gemini["path"],
            gemini["body"],
            {"x-goog-api-key": "k"},
        ),
    ]
    sessions = [f"claude:{CLAUDE}", "codex:t-9", "proxy:mine", None]
    with FakeServer(scripted([reply for reply, *_ in wires])) as upstream:
        proxy = recorded(upstream.url)
        replies = [
            post(proxy.url, path, body, headers)[1].read() for _, path, body, headers in wires
        ]
        close_opened()
        for session in sessions[:3]:
            assert [r.type for r in proxy.rows(session, 2)][-1] == "assistant"
        assert proxy.writer.flush()
        received = [json.dumps(p.body).encode() for p in upstream.posts]
    assert len(received) == 4
    for body in received:
        carried(body)
    assert json.dumps(said)[1:-1].encode() in replies[0]  # the client got them as they were
    typed_rows = vybe.sql("SELECT content_text FROM messages WHERE type = 'user'")
    assert sum("please look at these" in t for (t,) in typed_rows) >= 4
    answers = vybe.sql("SELECT content_text FROM messages WHERE type = 'assistant'")
    assert sum("please look at these" in t for (t,) in answers) >= 3
    assert_clean(vybe, store_bytes(vybe) + home_bytes(vybe))


async def _mcp_calls(vybe, texts: list[str]) -> None:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=VYBE, args=["mcp", "--agent", "mcp-agent"], env=vybe.env)
    async with AsyncExitStack() as stack:
        read, write = await stack.enter_async_context(stdio_client(params))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        made = await session.call_tool("task_create", {"title": "rotate", "description": texts[0]})
        assert not made.is_error, made.content
        task_id = made.structured_content["task"]["id"]
        for name, arguments in [
            ("task_note", {"task_id": task_id, "message": texts[1]}),
            ("memory_set", {"key": "creds", "value": texts[2]}),
            (
                "push",
                {
                    "document": json.dumps(
                        {
                            "task_id": task_id,
                            "event": {"kind": "progress", "message": texts[3] + texts[4]},
                        }
                    )
                },
            ),
        ]:
            result = await session.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)


def test_mcp_tools_write_no_planted_secret(vybe):
    vybe.ok("init")
    secrets = planted()
    asyncio.run(_mcp_calls(vybe, [words(secrets[i::5]) for i in range(5)]))
    assert_clean(vybe, store_bytes(vybe) + home_bytes(vybe))


def shown(vybe, *outputs: object) -> None:
    """What vybe shows (brief, hand-off, search, ``data query``) holds no secret nor the span."""
    text = json.dumps(outputs)
    for shape, secret, _ in planted():
        for needle in needles(secret):
            assert json.dumps(needle)[1:-1] not in text, shape
    assert PRIVATE not in text


def test_chat_checkpoints_hand_offs_notes_and_replayed_requests_write_no_planted_secret(
    vybe, tmp_path
):
    secrets = planted()
    texts = [words(secrets[i::5]) for i in range(5)]
    for n in range(40):
        vybe.ok(
            "session", "say", "s1", f"step {n}: keep the ledger rounding half-even " + "x " * 200
        )
    for _ in range(2):  # the second is answered from the idempotency record
        vybe.ok("session", "say", "s1", texts[0], "--request-id", "say-1")
    vybe.ok("session", "checkpoint", "s1", "--scripted", "--window", "32000")
    task = vybe.task("rotate the keys", "--description", texts[1])
    vybe.ok("note", task, texts[2], "--request-id", "note-1")
    handed = vybe.ok("task", "assign", "--task-id", task, "--to", "codex", "--session-id", "s1")
    with FakeServer(scripted([openai_reply(texts[4])])) as server:
        flags = ["--model", "local", "--base-url", server.url + "/v1", "--window", "8000"]
        vybe.ok("chat", "--once", texts[3], *flags)
        asked = server.posts[0].body["messages"][-1]["content"]
    # vybe chat's model reads its context back from the record: the words as kept
    assert "please look at these" in asked and "[REDACTED:" in asked and PRIVATE not in asked
    assert vybe.sql("SELECT COUNT(*) FROM checkpoints")[0][0] >= 1
    assert vybe.sql("SELECT COUNT(*) FROM idempotency")[0][0] >= 2
    assert_clean(vybe, store_bytes(vybe) + home_bytes(vybe))
    shown(
        vybe,
        handed,
        vybe.ok("brief", "--task-id", task, agent="codex"),
        vybe.ok("search", "please look at these"),
        vybe.ok("data", "query", "--sql", "SELECT * FROM messages"),
        vybe.ok("data", "query", "--sql", "SELECT * FROM checkpoints"),
        vybe.ok("data", "query", "--sql", "SELECT * FROM handoff_context"),
    )
