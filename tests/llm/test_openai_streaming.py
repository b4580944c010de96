"""Streamed Chat Completions against a fake OpenAI server sending real chunked SSE bodies."""

from __future__ import annotations

import json
import time

import pytest

from tests.fakes.servers import FakeServer, Response, openai_events, openai_reply, scripted
from vybe.errors import ModelError
from vybe.llm.base import ContextLengthExceeded, Message, Request, ToolCall, Watch
from vybe.llm.http import RetryPolicy
from vybe.llm.openai_compat import OpenAICompatible

FAST = RetryPolicy(attempts=3, base_delay=0.01, timeout=5)
TEXT = "Streaming replies arrive a few characters at a time, in order."
CALLS = [
    ("call_a", "read", {"path": "src/vybe/llm/http.py"}),
    ("call_b", "write", {"path": "notes.md", "content": "two calls, one reply"}),
]


class Seen:
    """A watch that keeps what it was shown: the text pieces and the retries, in order."""

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.log: list[str] = []

    def text(self, piece: str) -> None:
        self.pieces.append(piece)
        self.log.append("text")

    def retry(self, reason: str) -> None:
        self.log.append("retry: " + reason)

    @property
    def watch(self) -> Watch:
        return Watch(self.text, self.retry)


def model_for(server: FakeServer, policy: RetryPolicy = FAST, **extra) -> OpenAICompatible:
    url = server.url + "/v1"
    return OpenAICompatible("gpt-test", base_url=url, api_key="sk-test", policy=policy, **extra)


def ask(text: str = "hi") -> Request:
    return Request(system="be brief", messages=(Message("user", text),))


def both_ways(answer: Response, **server_options):
    """The same scripted answer asked for streamed, then whole."""
    with FakeServer(scripted([answer, answer]), **server_options) as server:
        streamed = model_for(server).complete(ask())
        whole = model_for(server, stream=False).complete(ask())
    return streamed, whole


def test_streamed_text_reaches_the_watch_in_order_piece_by_piece():
    seen = Seen()
    with FakeServer(scripted([openai_reply(TEXT)])) as server:
        reply = model_for(server).complete(ask(), seen.watch)
    assert len(seen.pieces) > 10
    assert "".join(seen.pieces) == TEXT == reply.text


def test_streamed_text_reply_equals_the_non_streaming_reply():
    streamed, whole = both_ways(openai_reply(TEXT, usage=(120, 7, 100)))
    assert streamed == whole
    assert streamed.usage.input_tokens == 120


def test_parallel_tool_calls_assemble_from_interleaved_fragments():
    streamed, whole = both_ways(openai_reply("Reading and writing.", calls=CALLS))
    assert streamed == whole
    assert streamed.tool_calls == tuple(ToolCall(*call) for call in CALLS)
    assert streamed.stop_reason == "tool_use"


def test_length_finish_streamed_equals_non_streaming():
    streamed, whole = both_ways(openai_reply("cut sho", finish="length"))
    assert streamed == whole
    assert streamed.stop_reason == "length"


def test_request_asks_to_stream_with_usage():
    with FakeServer(scripted([openai_reply("ok")])) as server:
        model_for(server).complete(ask())
    sent = server.posts[0].body
    assert sent["stream"] is True
    assert sent["stream_options"] == {"include_usage": True}


def test_usage_comes_from_the_last_chunk():
    with FakeServer(scripted([openai_reply("ok", usage=(300, 12, 256))])) as server:
        usage = model_for(server).complete(ask()).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (300, 12, 256)


def test_server_sending_no_usage_leaves_usage_unknown():
    with FakeServer(scripted([openai_reply("ok")]), stream_usage=False) as server:
        reply = model_for(server).complete(ask())
    assert reply.text == "ok"
    assert reply.usage is None


def test_server_refusing_stream_options_is_asked_again_without_them_from_then_on():
    answers = [openai_reply("one"), openai_reply("two")]
    with FakeServer(scripted(answers), refuse_stream_options=True) as server:
        model = model_for(server)
        first, second = model.complete(ask()), model.complete(ask())
    assert (first.text, second.text) == ("one", "two")
    assert ["stream_options" in p.body for p in server.posts] == [True, False, False]
    assert all(p.body["stream"] is True for p in server.posts)


def test_stream_cut_mid_way_is_retried_and_the_watch_told():
    events = openai_events(openai_reply(TEXT).body)
    answers = [Response(events=events, die=True), openai_reply(TEXT)]
    seen = Seen()
    with FakeServer(scripted(answers)) as server:
        reply = model_for(server).complete(ask(), seen.watch)
    assert reply.text == TEXT
    retry = next(i for i, entry in enumerate(seen.log) if entry.startswith("retry"))
    assert 0 < retry < len(seen.log) - 1
    assert "".join(seen.pieces[retry:]) == TEXT
    assert len(server.posts) == 2


def test_chunks_cut_across_events_and_utf8_characters_assemble_the_same_text():
    text = "Grüße aus Zürich: 日本語のテキスト, emoji 🚀 too."
    raw = "".join(openai_events(openai_reply(text).body)).encode()
    cut = [raw[i : i + 5] for i in range(0, len(raw), 5)]
    with FakeServer(scripted([Response(events=cut)])) as server:
        assert model_for(server).complete(ask()).text == text


def test_stream_ending_without_done_is_retried():
    events = openai_events(openai_reply(TEXT).body)[:-1]
    with FakeServer(scripted([Response(events=events), openai_reply("whole")])) as server:
        assert model_for(server).complete(ask()).text == "whole"
    assert len(server.posts) == 2


def test_stream_always_cut_is_a_model_error_after_the_attempts():
    cut = Response(events=openai_events(openai_reply(TEXT).body), die=True)
    with FakeServer(scripted([cut] * 3)) as server, pytest.raises(ModelError, match="3 attempts"):
        model_for(server).complete(ask())


def test_error_chunk_inside_the_stream_is_retried():
    events = openai_events(openai_reply("par").body)[:2]
    error = {"error": {"message": "engine crashed", "type": "InternalServerError", "code": 500}}
    broken = Response(events=[*events, f"data: {json.dumps(error)}\n\n"])
    with FakeServer(scripted([broken, openai_reply("ok")])) as server:
        assert model_for(server).complete(ask()).text == "ok"
    assert len(server.posts) == 2


def test_overflow_error_chunk_is_a_context_length_refusal_without_retry():
    error = {"error": {"message": "maximum context length is 8192 tokens", "code": 400}}
    refusal = Response(events=[f"data: {json.dumps(error)}\n\n"])
    with FakeServer(scripted([refusal])) as server, pytest.raises(ContextLengthExceeded):
        model_for(server).complete(ask())
    assert len(server.posts) == 1


def test_stall_between_chunks_longer_than_the_read_timeout_is_retried():
    stalled = Response(events=openai_events(openai_reply(TEXT).body), stall=2.0)
    policy = RetryPolicy(attempts=2, base_delay=0.01, timeout=0.4)
    seen = Seen()
    with FakeServer(scripted([stalled, openai_reply("after the stall")])) as server:
        reply = model_for(server, policy).complete(ask(), seen.watch)
    assert reply.text == "after the stall"
    assert any(e.startswith("retry: ReadTimeout") for e in seen.log)


def test_slow_stream_outlasting_the_timeout_succeeds_while_chunks_keep_coming():
    # Each gap far inside the timeout (a loaded machine stalls a thread for tenths of a
    # second), the whole stream well past it: 14 chunks 0.15 s apart against 1.2 s.
    text = "slow but steady, slow but steady"
    slow = Response(events=openai_events(openai_reply(text).body), gap=0.15)
    policy = RetryPolicy(attempts=1, timeout=1.2)
    with FakeServer(scripted([slow])) as server:
        started = time.monotonic()
        reply = model_for(server, policy).complete(ask())
        took = time.monotonic() - started
    assert reply.text == text
    assert took > policy.timeout  # the whole stream outlasted the read timeout


def test_json_answer_to_a_streaming_request_is_the_reply_shown_in_one_piece():
    seen = Seen()
    with FakeServer(scripted([openai_reply(TEXT)]), streams=False) as server:
        reply = model_for(server).complete(ask(), seen.watch)
    assert reply.text == TEXT
    assert seen.pieces == [TEXT]
    assert len(server.posts) == 1


def test_a_server_that_answered_whole_is_not_asked_to_stream_again():
    with FakeServer(scripted([openai_reply("one"), openai_reply("two")]), streams=False) as server:
        model = model_for(server)
        model.complete(ask())
        assert model.complete(ask()).text == "two"
    assert server.posts[0].body["stream"] is True
    assert "stream" not in server.posts[1].body


def test_not_streaming_sends_no_stream_flag_and_shows_the_text_once():
    seen = Seen()
    with FakeServer(scripted([openai_reply(TEXT)])) as server:
        model_for(server, stream=False).complete(ask(), seen.watch)
    assert "stream" not in server.posts[0].body
    assert seen.pieces == [TEXT]


def tool_chunks(*fragments: dict) -> Response:
    """A stream of one tool-call fragment per chunk, then the finish and ``[DONE]``."""
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": [f]}}]} for f in fragments]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return Response(events=[f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"])


def fragment(call_id: str | None, name: str | None, arguments, index: int | None = 0) -> dict:
    function = {k: v for k, v in (("name", name), ("arguments", arguments)) if v is not None}
    made = {"function": function}
    if call_id:
        made["id"] = call_id
    if index is not None:
        made["index"] = index
    return made


def streamed_calls(answer: Response) -> tuple[ToolCall, ...]:
    with FakeServer(scripted([answer])) as server:
        return model_for(server).complete(ask()).tool_calls


def test_calls_that_all_share_index_0_stay_apart_by_their_ids():
    answer = tool_chunks(
        fragment("a", "read", '{"path": '),
        fragment(None, None, '"x"}'),
        fragment("b", "bash", '{"command": "ls"}'),
    )
    assert streamed_calls(answer) == (
        ToolCall("a", "read", {"path": "x"}),
        ToolCall("b", "bash", {"command": "ls"}),
    )


def test_calls_without_an_index_go_to_the_newest_call_unless_their_id_is_new():
    answer = tool_chunks(
        fragment("a", "read", '{"path": ', index=None),
        fragment(None, None, '"x"}', index=None),
        fragment("b", "bash", '{"command": "ls"}', index=None),
    )
    assert streamed_calls(answer) == (
        ToolCall("a", "read", {"path": "x"}),
        ToolCall("b", "bash", {"command": "ls"}),
    )


def test_arguments_sent_as_an_object_are_taken_as_they_are():
    answer = tool_chunks(fragment("a", "read", {"path": "x"}))
    assert streamed_calls(answer) == (ToolCall("a", "read", {"path": "x"}),)


def test_choices_that_are_not_objects_are_skipped():
    events = ['data: {"choices": [null, 3]}\n\n', *openai_events(openai_reply(TEXT).body)]
    odd = Response(events=events)
    with FakeServer(scripted([odd])) as server:
        assert model_for(server).complete(ask()).text == TEXT
