"""Faults through the recording proxy: the client hears what the upstream said (or a clear
error in its API's shape), and the record loses nothing and doubles nothing: an error reply
is not recorded and the request sent again records its inputs once, a stream the upstream
cuts is kept as far as it came, a refused body or hostile JSON leaves the record as it was
and never stops the proxy."""

from __future__ import annotations

import http.client
import json

import pytest

from tests.fakes.servers import (
    FakeServer,
    Received,
    Response,
    anthropic_error,
    anthropic_events,
    anthropic_reply,
    openai_error,
    responses_reply,
    scripted,
)
from tests.proxy.talk import post
from tests.proxy.test_record import CLAUDE, HEADERS, claude_body, shape, user

SESSION = f"claude:{CLAUDE}"


@pytest.mark.parametrize(
    "error",
    [
        anthropic_error(429, "rate_limit_error", "slow down", {"retry-after": "7"}),
        anthropic_error(529, "overloaded_error", "Overloaded"),
        anthropic_error(500, "api_error", "boom", {"request-id": "req_9"}),
        anthropic_error(401, "authentication_error", "invalid x-api-key"),
    ],
)
def test_an_upstream_error_reaches_the_client_unchanged_and_the_retry_records_once(recorded, error):
    with FakeServer(scripted([error, anthropic_reply("ok")])) as upstream:
        proxy = recorded(upstream.url)
        body = claude_body([user("go")])
        _, failed = post(proxy.url, "/v1/messages", body, HEADERS)
        assert (failed.status, json.loads(failed.read())) == (error.status, error.body)
        for name, value in error.headers.items():
            assert failed.getheader(name) == value
        post(proxy.url, "/v1/messages", body, HEADERS)[1].read()
        rows = proxy.rows(SESSION, 2)
    assert shape(rows) == [("user", "go"), ("assistant", "ok")]


def test_an_error_event_inside_a_200_stream_is_relayed_and_no_reply_is_invented(recorded):
    events = ['event: error\ndata: {"type": "error", "error": {"type": "overloaded_error"}}\n\n']
    with FakeServer(scripted([Response(events=events)])) as upstream:
        proxy = recorded(upstream.url)
        _, response = post(proxy.url, "/v1/messages", claude_body([user("go")]), HEADERS)
        assert b"overloaded_error" in response.read()
        rows = proxy.rows(SESSION, 1)
    assert shape(rows) == [("user", "go")]


def test_a_stream_the_upstream_cuts_is_recorded_as_far_as_it_came_marked_cut(recorded):
    events = anthropic_events(anthropic_reply("half of a long answer").body)
    with FakeServer(scripted([Response(events=events, die=True)])) as upstream:
        proxy = recorded(upstream.url)
        _, response = post(proxy.url, "/v1/messages", claude_body([user("go")]), HEADERS)
        with pytest.raises(http.client.IncompleteRead):  # cut for the client at the same byte
            response.read()
        rows = proxy.rows(SESSION, 2)
    assert [r.type for r in rows] == ["user", "assistant"]
    kept = rows[1].text.removesuffix("…")  # its unfinished word left out
    assert "half of a long answer".startswith(kept) and kept.endswith(" ") and kept.strip()
    assert rows[1].data["cut"]


def test_a_20_mb_body_is_refused_in_the_apis_shape_and_the_record_is_untouched(
    recorded, store_location
):
    text = "x" * (20 * 1024 * 1024)
    with FakeServer(scripted([])) as upstream:
        proxy = recorded(upstream.url, max_body=1 << 20)
        _, response = post(proxy.url, "/v1/messages", claude_body([user(text)]), HEADERS)
        refused = json.loads(response.read())
        rows = proxy.rows(SESSION, 0)
        assert upstream.posts == []
    assert response.status == 413 and refused["error"]["type"] == "request_too_large"
    assert rows == []


HOSTILE = [
    b"[" * 200_000 + b"]" * 200_000,  # nested past any recursion limit
    b'{"messages": {"role": "user"}, "metadata": {"user_id": 7}}',
    b'{"messages": [{"role": "user", "content": 12}, null, "x", {"role": ["user"]}]}',
    b'{"messages": [{"role": "user", "content": [{"type": "tool_result", "content": {}}]}]}',
    b'{"messages": [{"role": "assistant", "content": [{"type": "tool_use", "input": 3}]}]}',
    b'{"input": [{"type": "function_call_output"}, {"type": "message", "content": 5}]}',
    b'{"messages": [{"role": "user", "content": "\\ud800 lone surrogate"}]}',
    b'{"model": 1e999, "messages": [{"role": "user", "content": "NaN"}], "stream": NaN}',
]


def answer_next_only(received: Received) -> Response:
    """``input: "next"`` is answered; anything else is refused as a real API would."""
    body = received.body if isinstance(received.body, dict) else {}
    return (
        responses_reply("still here") if body.get("input") == "next" else openai_error(400, "bad")
    )


@pytest.mark.parametrize("raw", HOSTILE)
def test_hostile_json_is_relayed_for_the_upstream_to_judge_and_the_proxy_goes_on(recorded, raw):
    with FakeServer(answer_next_only) as upstream:
        proxy = recorded(upstream.url)
        path = "/v1/responses" if b'"input"' in raw else "/v1/messages"
        _, response = post(proxy.url, path, raw, HEADERS)
        response.read()
        # the upstream's refusal, or (nesting the fake server cannot parse either) its hang-up
        assert response.status in (400, 502)
        body = {"model": "m", "input": "next", "prompt_cache_key": "t-2"}
        _, after = post(proxy.url, "/v1/responses", body)
        after.read()
        assert after.status == 200
        rows = proxy.rows("codex:t-2", 2)
    assert shape(rows) == [("user", "next"), ("assistant", "still here")]
