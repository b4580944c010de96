"""Which of the person's messages set direction and which only acknowledge: str matching
that agrees with the regular expressions it replaced (kept here as the reference)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from vybe.integrations.user_words import (
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
