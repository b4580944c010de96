"""Redaction on the hook path costs what it must: a prompt that names an api, a token or a
password but holds no value after an assignment, or holds a rule's keyword in ordinary
words (task, they, tests., test_login) but no word long enough for its secret, imports no
regular expressions (re with enum, ~2.5 ms of a hook's ~20) to find that it holds none."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.test_startup_imports import heavy_in, loaded
from tests.privacy.planted import planted
from vybe.privacy.needs import NEEDS

PROMPTS = (
    "add a test for the login flow and keep the api stable",
    "the token expires after an hour, refresh it on a 401",
    "password reset: send the link by mail",
    "they asked for a task. fix test_login in the tests.",
)


@pytest.mark.sqlite_only("the start-up import guards hold on SQLite; a URL loads psycopg")
@pytest.mark.parametrize("prompt", PROMPTS)
def test_an_ordinary_prompt_with_a_rules_keyword_imports_no_re(vybe, tmp_path, prompt):
    payload = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit"}
    modules = loaded(vybe, ["hook", "run", "claude"], {**payload, "prompt": prompt})
    assert "vybe.privacy.keywords" in modules  # redaction is on, and looked
    assert heavy_in(modules, {"re", "enum"}) == set()
    assert vybe.sql("SELECT content_text FROM messages WHERE type = 'user'") == [(prompt,)]


ALLOW_CASES = [
    "$HOME", "${VAR}", "$1", "${{ secrets.TOKEN }}", "{{ api_key }}", "{0}", "%s", "%APPDATA%",
    "@KEY@", "/usr/local/bin/tool", "/Users/me/src/app", "true", "NULL", "aaaaaaaa", "*****",
    "github_pat_11ABCDEFG0abcdefghijklmnop", "sk-live-0123456789abcdef", "/opt/app", "$",
]  # fmt: skip


@pytest.mark.parametrize("secret", ALLOW_CASES)
def test_the_allow_list_answers_as_if_every_pattern_were_tried(secret):
    """A pattern skipped by its leading literal or its precheck could not have matched."""
    import re

    from vybe import privacy
    from vybe.privacy.rules import ALLOW, STOPWORDS

    tried = any(re.search(p, secret) for p in ALLOW) or any(w in secret.lower() for w in STOPWORDS)
    assert privacy._globally_allowed(secret) is tried


def test_a_prompt_holding_a_token_compiles_the_rules_it_matched_and_no_allow_pattern():
    """The benchmark's prompt with a token (benchmarks/privacy.py): the generic rule's match
    is let through by its stop word "github" before any allow pattern (the answer is the
    same, the ~1 ms compile of its allow-list on the match is not), and no allow pattern
    is one the token could match."""
    from vybe import privacy

    line = planted()[4][2]
    privacy._PATTERNS.clear()
    redactor = privacy.Redactor()
    assert redactor.redact(f"use {line}") == (
        "use token: [REDACTED:github-fine-grained-pat]",
        {"github-fine-grained-pat": 1},
    )
    assert {rule[0] for rule in redactor._compiled.values()} == {
        "generic-api-key",
        "github-fine-grained-pat",
    }
    assert privacy._PATTERNS == {}


def _allow_patterns() -> list[str]:
    from vybe.privacy.rules import ALLOW, RULES

    found = [p for rule in RULES for _, patterns, _ in rule[6] for p in patterns]
    return sorted({*ALLOW, *found})


@pytest.mark.parametrize("pattern", _allow_patterns(), ids=lambda p: p[:40])
@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_an_allow_pattern_is_skipped_only_where_it_could_not_match(pattern, data):
    """Its leading literal and its precheck (needs.py) answer as the pattern itself does, on
    texts it matches (generated from it, ASCII and not) and on texts of its own pieces."""
    import re

    from vybe import privacy

    matching = st.from_regex(pattern)
    pieces = st.lists(st.sampled_from([*re.split(r"(\W)", pattern), "a", "1", "\n", "\u017f"]))
    text = data.draw(st.one_of(matching, pieces.map("".join), st.text()))
    assert privacy._searched(pattern, text) is bool(re.search(pattern, text))


@pytest.mark.parametrize("pattern", sorted(NEEDS), ids=lambda p: p[:40])
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_precheck_lets_through_every_text_its_pattern_matches(pattern, data):
    """Many matches of each pattern needs.py tests for, so that every alternative of the
    generic rule's allow-list on the match is drawn."""
    from vybe import privacy

    text = data.draw(st.from_regex(pattern))
    assert privacy._searched(pattern, text)


@pytest.mark.parametrize(
    "text", ["secret_\u017fize", "fal\u017fe", "\u212a" * 3, "api_name", "key-\u212aeystore"]
)
def test_a_text_outside_ascii_is_searched_whatever_its_lowered_words(text):
    """(?i) matches the long s as s and the Kelvin sign as k: a precheck of ASCII words
    would refuse these texts, so they are searched with the pattern."""
    import re

    from vybe import privacy

    for pattern in NEEDS:
        assert privacy._searched(pattern, text) is bool(re.search(pattern, text)), pattern


def test_every_precheck_is_of_a_pattern_of_the_rules():
    """A regenerated rule whose pattern changed leaves its precheck unused: this names it."""
    assert set(NEEDS) - set(_allow_patterns()) == set()


@pytest.mark.parametrize(
    ("pattern", "leading"),
    [
        (r"^\$(?:\d+)$", (True, "$")),
        (r"^%[a-z]%$", (True, "%")),
        (r"^/(?:bin|usr)/x$", (True, "/")),
        (r"^/Users/(?i:[a-z0-9]+/[\w .-/]+$)", (True, "/Users/")),
        (r"^\${(?:[A-Z_]+|[a-z_]+)}$", (True, "${")),  # a brace that is no repeat
        (r"^\{\{[ \t]*", (True, "{{")),
        ("--mount=type=secret,", (False, "--mount=type=secret,")),
        (r"import[ \t]+{[ \t\w,]+}", (False, "import")),
        (r"ab?c", (False, "a")),  # b may be missing
        (r"^ab{2,}", (True, "a")),
        (r"x{,}y", (False, "")),
        (r"^$", (True, "")),  # an end anchor, not a dollar sign
        (r"^/bin|usr", (True, "")),  # matches "usr" anywhere
        (r"^@(?:a|b)[|]\|x", (True, "@")),  # every other | is grouped, in a class or escaped
        (r"(?i)^true|false", (False, "")),
        (r".+EXAMPLE$", (False, "")),
        (r"\d+x", (False, "")),
    ],
)
def test_a_patterns_leading_literal_is_what_every_match_begins_with(pattern, leading):
    from vybe import privacy

    assert privacy._leading_literal(pattern) == leading


def test_the_same_words_scrubbed_again_are_redacted_once_and_a_new_config_is_heeded(
    monkeypatch,
):
    """A prompt's hook scrubs its words for the message row, the row it hands back and its
    event: the rules run once; scrubbed under another config, they run again."""
    from vybe import privacy

    calls = []
    redact = privacy.Redactor.redact
    monkeypatch.setattr(
        privacy.Redactor,
        "redact",
        lambda self, text, within=None: calls.append(text) or redact(self, text, within),
    )
    line = planted()[4][2]
    on, other = privacy.Redactor(), privacy.Redactor(allow=["^github_pat_"])
    assert [privacy._scrubbed(line, on) for _ in range(3)] == [
        "token: [REDACTED:github-fine-grained-pat]"
    ] * 3
    assert len(calls) == 1
    assert privacy._scrubbed(line, other) == line
    assert privacy._scrubbed(line, None) == line
    assert privacy._scrubbed(line + " ", on) == "token: [REDACTED:github-fine-grained-pat] "
    assert len(calls) == 3
