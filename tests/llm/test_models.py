"""The models table: built-in entries, config overrides, flag overrides, price steps."""

from __future__ import annotations

import pytest

from vybe.errors import InvalidInput
from vybe.llm.models import UNKNOWN_WINDOW, resolve


def test_dated_model_id_matches_its_family_entry():
    info = resolve("claude-sonnet-4-5-20250929")
    assert (info.provider, info.window, info.max_output) == ("anthropic", 200_000, 64_000)
    assert info.known


def test_longest_prefix_wins():
    assert resolve("gpt-4o-mini-2024-07-18").prices[0].input == 0.15
    assert resolve("gpt-4o-2024-08-06").prices[0].input == 2.5


def test_one_million_sonnet_has_a_price_step_at_200k_and_the_beta_header():
    info = resolve("claude-sonnet-4-5[1m]")
    assert info.window == 1_000_000
    assert info.price_steps == (200_000,)
    assert info.wire_name == "claude-sonnet-4-5"
    assert info.headers == {"anthropic-beta": "context-1m-2025-08-07"}


def test_input_limit_below_window_is_kept():
    info = resolve("gpt-5")
    assert (info.window, info.input_tokens_limit) == (400_000, 272_000)


def test_unknown_model_gets_the_default_window_and_guessed_provider():
    info = resolve("qwen2.5-coder:7b")
    assert (info.window, info.provider, info.known) == (UNKNOWN_WINDOW, "openai", False)


def test_config_entry_adds_a_local_model():
    overrides = {"qwen-local": {"window": 32768, "max_output": 4096, "prices": []}}
    info = resolve("qwen-local", overrides=overrides)
    assert (info.window, info.max_output, info.known) == (32768, 4096, True)
    assert info.reply_reserve == 4096


def test_config_entry_overrides_one_field_of_a_builtin():
    info = resolve("gpt-4o", overrides={"gpt-4o": {"window": 64000}})
    assert info.window == 64000
    assert info.max_output == 16_384


def test_flags_override_window_and_max_output():
    info = resolve("gpt-5", window=8000, max_output=1000)
    assert (info.window, info.input_tokens_limit, info.max_output) == (8000, 8000, 1000)


def test_reply_reserve_is_at_most_a_quarter_window():
    assert resolve("claude-opus-4", window=8000).reply_reserve == 2000


def test_cost_uses_the_step_the_context_falls_in():
    info = resolve("claude-sonnet-4-5[1m]")
    assert info.cost(100_000, 1000) == pytest.approx(0.3 + 0.015)
    assert info.cost(300_000, 1000) == pytest.approx(1.8 + 0.0225)


def test_config_price_steps_as_mappings():
    overrides = {
        "m": {
            "window": 10**6,
            "prices": [
                {"from": 0, "input": 1, "output": 2},
                {"from": 272000, "input": 2, "output": 4},
            ],
        }
    }
    assert resolve("m", overrides=overrides).price_steps == (272_000,)


def test_bad_window_is_invalid_input():
    with pytest.raises(InvalidInput, match="window"):
        resolve("m", overrides={"m": {"window": "big"}})


def test_models_stream_unless_their_entry_or_the_flag_says_not():
    overrides = {"old-llama": {"stream": False}}
    assert resolve("gpt-4o").stream is True
    assert resolve("old-llama", overrides=overrides).stream is False
    assert resolve("gpt-4o", stream=False).stream is False


def test_stream_setting_that_is_not_true_or_false_is_invalid_input():
    with pytest.raises(InvalidInput, match=r"models\.old-llama\.stream"):
        resolve("old-llama", overrides={"old-llama": {"stream": "no"}})
