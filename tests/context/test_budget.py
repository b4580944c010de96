"""Budget arithmetic against figures computed by hand (the formulas of docs/architecture.md)."""

import pytest

from vybe.context.budget import ModelLimits, compute, cut, estimate

# window, price step, O, M, T, keep, mind limits, memo per message, memo total, now minimum
FIGURES = [
    (8_000, None, 2_000, 1_000, 5_000, 1_250, (41, 83, 62, 62), 12, 125, 32),
    (8_000, 4_000, 2_000, 1_000, 3_600, 900, (41, 83, 62, 62), 12, 125, 32),
    (32_000, None, 8_000, 4_000, 20_000, 5_000, (166, 333, 250, 250), 50, 500, 32),
    (32_000, 16_000, 8_000, 4_000, 14_400, 3_600, (166, 333, 250, 250), 50, 500, 32),
    (128_000, None, 8_192, 8_000, 111_808, 20_000, (666, 1_333, 1_000, 1_000), 200, 2_000, 64),
    (128_000, 100_000, 8_192, 8_000, 90_000, 20_000, (666, 1_333, 1_000, 1_000), 200, 2_000, 64),
    (200_000, None, 8_192, 8_000, 180_000, 20_000, (1_000, 2_000, 1_500, 1_500), 300, 3_000, 100),
    (
        200_000,
        128_000,
        8_192,
        8_000,
        115_200,
        20_000,
        (1_000, 2_000, 1_500, 1_500),
        300,
        3_000,
        100,
    ),
    (
        1_000_000,
        None,
        8_192,
        30_000,
        900_000,
        20_000,
        (1_000, 2_000, 1_500, 1_500),
        300,
        3_000,
        128,
    ),
    (
        1_000_000,
        200_000,
        8_192,
        30_000,
        180_000,
        20_000,
        (1_000, 2_000, 1_500, 1_500),
        300,
        3_000,
        128,
    ),
]


@pytest.mark.parametrize(
    ("window", "step", "o", "m", "t", "keep", "mind", "per", "total", "now_min"), FIGURES
)
def test_budget_matches_hand_computed_figures(
    window, step, o, m, t, keep, mind, per, total, now_min
):
    budget = compute(ModelLimits(window=window, price_steps=(step,) if step else ()))
    assert (budget.reply_reserve, budget.margin, budget.threshold, budget.keep) == (o, m, t, keep)
    assert tuple(budget.mind_limits.values()) == mind
    assert (budget.memo_per_message, budget.memo_total, budget.now_min) == (per, total, now_min)


def test_large_reply_reserve_lowers_the_threshold_below_ninety_percent():
    budget = compute(ModelLimits(window=200_000, max_output=50_000))
    assert budget.threshold == 142_000


def test_input_limit_below_the_window_bounds_the_threshold():
    budget = compute(ModelLimits(window=200_000, input_limit=100_000))
    assert budget.threshold == 83_808


def test_price_step_at_or_above_the_window_is_ignored():
    assert compute(ModelLimits(window=128_000, price_steps=(128_000, 256_000))).threshold == 111_808


def test_unknown_window_defaults_to_128k():
    assert compute(ModelLimits()).threshold == 111_808


def test_can_fit_uses_the_reserve_and_due_the_threshold():
    budget = compute(ModelLimits(window=32_000))
    assert budget.can_fit(24_000) and not budget.can_fit(24_001)
    assert budget.due(20_000) and not budget.due(19_999)


@pytest.mark.parametrize(
    ("text", "tokens"), [("", 0), ("abcd", 1), ("abcde", 2), ("héllo", 2), ("日本語", 3)]
)
def test_estimate_is_utf8_bytes_over_four_rounded_up(text, tokens):
    assert estimate(text) == tokens


def test_cut_never_splits_a_character():
    assert cut("日本語です", 1) == "日"
