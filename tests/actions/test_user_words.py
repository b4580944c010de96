"""Which of the person's messages set direction and which only acknowledge: str matching
that agrees with the regular expressions it replaced (kept here as the reference)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from vybe.actions.user_words import (
    ACKS,
    DIRECTION,
    TOKEN_BUDGET,
    choose,
    is_ack,
    sets_direction,
)
from vybe.store.record import MessageRow

ACK_PATTERN = re.compile(
    r"^\s*(ok(ay)?|k|yes|yep|yeah|sure|go( on| ahead)?|continue|proceed|next|thanks?( you)?|"
    r"thx|great|good|nice|perfect|lgtm|do it|carry on|keep going|sounds good|👍)[\s.!]*$",
    re.IGNORECASE,
)
DIRECTION_PATTERN = re.compile(
    r"\b(must|never|always|don'?t|do not|should|shouldn'?t|prefer|please|make sure|only|"
    r"instead|avoid|allowed?|permission|you (can|may)|not allowed|goal|want|need|require|"
    r"rule|important|remember|stop|keep|use)\b",
    re.IGNORECASE,
)
# Letters, digits, word joiners and separators; not the few characters whose case folding
# re and str.lower() treat differently (dotted and dotless i, long s, the Kelvin sign).
pieces = st.sampled_from(
    [*ACKS, *DIRECTION, *"aAeéZ9_'’.!? -\t\n", "OK", "Don't", "USEFUL", "reuse", "👍"]
)
texts = st.lists(pieces, max_size=8).map("".join)


@given(texts)
def test_is_ack_agrees_with_the_pattern(text):
    assert is_ack(text) == bool(ACK_PATTERN.match(text))


@given(texts)
def test_sets_direction_agrees_with_the_pattern(text):
    assert sets_direction(text) == bool(DIRECTION_PATTERN.search(text))


def test_examples():
    assert is_ack("  Go on.!  ") and is_ack("thanks you!") and not is_ack("ok, and tests")
    assert sets_direction("Please, never push") and not sets_direction("it was useful")


def _rows(*texts: str) -> list[MessageRow]:
    return [MessageRow("s", n, "user", text) for n, text in enumerate(texts, start=1)]


def test_a_long_pasted_message_does_not_crowd_out_a_short_rule():
    rows = _rows("Build the parser.", "Never push to main without asking.", "please " * 5000)
    chosen = choose(rows, TOKEN_BUDGET)
    assert [(c.row.seq, c.cut) for c in chosen] == [(1, False), (2, False), (3, True)]
    assert chosen[1].text == "Never push to main without asking."


def test_a_long_first_message_is_cut_and_the_rest_still_fit():
    rows = _rows("spec " * 8000, "you must always use tabs", "ok", "continue")
    chosen = choose(rows, TOKEN_BUDGET)
    assert [(c.row.seq, c.cut) for c in chosen] == [(1, True), (2, False), (3, False), (4, False)]


def _chosen_of_every_ranked_row(rows: list[MessageRow], budget: int) -> list[tuple[int, bool]]:
    """The choice as made before it stopped early: every row ranked, each tried in turn."""
    from vybe.actions import user_words

    left, chosen = budget, []
    share = max(user_words.MIN_CUT_TOKENS, budget // 3)
    if sum(user_words.estimate(r.text) + user_words.HEADER_TOKENS for r in rows) <= budget:
        return [(r.seq, False) for r in rows]
    for row in [rows[i] for i in user_words.ranked(rows, lambda i: True)]:
        cost = user_words.estimate(row.text) + user_words.HEADER_TOKENS
        if cost <= left:
            chosen.append((row.seq, False))
            left -= cost
        elif min(left - user_words.HEADER_TOKENS, share) >= user_words.MIN_CUT_TOKENS:
            chosen.append((row.seq, True))
            left -= min(left - user_words.HEADER_TOKENS, share) + user_words.HEADER_TOKENS
    return sorted(chosen)


@given(st.lists(st.tuples(texts, st.integers(0, 400)), max_size=40), st.integers(0, 3000))
def test_a_choice_that_stops_once_nothing_fits_picks_what_trying_every_row_picks(items, budget):
    rows = _rows(*(text + " x" * pad for text, pad in items))
    picked = [(c.row.seq, c.cut) for c in choose(rows, budget)]
    assert picked == _chosen_of_every_ranked_row(rows, budget)


def test_a_spent_budget_classifies_no_more_of_a_long_sessions_messages(monkeypatch):
    from vybe.actions import user_words

    asked: list[str] = []
    classify = user_words.sets_direction
    monkeypatch.setattr(user_words, "sets_direction", lambda t: asked.append(t) or classify(t))
    rows = _rows(*(f"please keep step {n} small, " * 8 for n in range(200)))
    chosen = choose(rows, TOKEN_BUDGET)
    assert len(chosen) < 60 and len(asked) <= len(chosen) + 1
