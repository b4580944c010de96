"""Choosing and connecting an adapter: clear errors before any turn starts."""

from __future__ import annotations

import time

import pytest

from tests.fakes.servers import FakeServer, scripted
from vybe.errors import InvalidInput, ModelError
from vybe.llm.anthropic import AnthropicMessages
from vybe.llm.http import RetryPolicy, Transport
from vybe.llm.openai_compat import OpenAICompatible
from vybe.llm.providers import Choice, connect, settle

FAST = RetryPolicy(attempts=2, base_delay=0.01, timeout=5, connect_timeout=2)


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "VYBE_CHAT_MODEL", "VYBE_CHAT_PROVIDER"):
        monkeypatch.delenv(name, raising=False)


def test_missing_anthropic_key_is_a_clear_error():
    info, base, env = settle(Choice(provider="anthropic"), {})
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY") as caught:
        connect(info, base, env, FAST)
    assert caught.value.code == "MODEL_KEY_MISSING"


def test_missing_openai_key_for_the_official_endpoint_is_a_clear_error():
    info, base, env = settle(Choice(model="gpt-4o"), {})
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        connect(info, base, env, FAST)


def test_local_server_needs_no_key():
    with FakeServer(scripted([])) as server:
        info, base, env = settle(Choice(model="llama", base_url=server.url + "/v1"), {})
        model = connect(info, base, env, FAST)
    assert isinstance(model, OpenAICompatible)
    assert server.received[0].path == "/v1/models"


def test_unreachable_server_is_a_clear_error_before_any_turn():
    with FakeServer(scripted([])) as server:
        url = server.url
    info, base, env = settle(Choice(model="llama", base_url=url), {})
    with pytest.raises(ModelError, match="cannot reach"):
        connect(info, base, env, FAST)


def test_config_chat_section_and_models_table_are_used(monkeypatch):
    monkeypatch.setenv("MY_KEY", "k")
    config = {
        "chat": {"provider": "anthropic", "model": "house-claude", "api_key_env": "MY_KEY"},
        "models": {"house-claude": {"window": 50000, "api_name": "claude-haiku-4-5"}},
    }
    with FakeServer(scripted([])) as server:
        config["chat"]["base_url"] = server.url
        info, base, env = settle(Choice(), config)
        model = connect(info, base, env, FAST)
    assert isinstance(model, AnthropicMessages)
    assert model.name == "claude-haiku-4-5"
    assert info.window == 50000
    assert server.received[0].headers["x-api-key"] == "k"


def test_unknown_provider_is_invalid_input():
    with pytest.raises(InvalidInput, match="provider"):
        settle(Choice(provider="gemini"), {})


@pytest.mark.parametrize("field", ["window", "max_output"])
def test_a_zero_override_is_refused_not_replaced_by_the_default(field):
    with pytest.raises(InvalidInput, match="positive"):
        settle(Choice(model="gpt-4o", **{field: 0}), {"chat": {field: 50000}})


@pytest.mark.parametrize("streams", [True, False])
def test_connected_adapter_streams_as_the_choice_says(streams):
    with FakeServer(scripted([])) as server:
        info, base, env = settle(Choice(model="local", base_url=server.url, stream=streams), {})
        model = connect(info, base, env, FAST)
    assert isinstance(model, OpenAICompatible)
    assert model.stream is streams


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:1/\x1b[2Jv1",
        "http://exa mple/v1",
        "http://h/\r\nX-Evil: 1",
        "ftp://h/v1",
        "127.0.0.1:11434",
        "http://",
    ],
)
def test_a_base_url_an_http_client_cannot_use_is_invalid_input_naming_it(url):
    with pytest.raises(InvalidInput) as refused:
        settle(Choice(model="m", base_url=url), {})
    assert refused.value.context["field"] == "base_url"


def test_a_plain_base_url_is_taken_as_given():
    _, url, _ = settle(Choice(model="m", base_url="http://127.0.0.1:8/v1"), {})
    assert url == "http://127.0.0.1:8/v1"


def test_clients_after_the_first_load_no_ca_bundle_again():
    """Loading the CA bundle costs ~20 ms of CPU; `vybe proxy` builds a client for every
    checkpoint it asks for: ten clients after the first take a fraction of one load each."""
    Transport("anthropic", {}, FAST).close()
    started = time.process_time()
    for _ in range(10):
        Transport("anthropic", {}, FAST).close()
    assert time.process_time() - started < 0.1
