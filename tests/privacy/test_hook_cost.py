"""Redaction on the hook path costs what it must: a prompt that names an api, a token or a
password but holds no value after an assignment, or holds a rule's keyword in ordinary
words (task, they, tests., test_login) but no word long enough for its secret, imports no
regular expressions (re with enum, ~2.5 ms of a hook's ~20) to find that it holds none."""

from __future__ import annotations

import pytest

from tests.cli.test_startup_imports import heavy_in, loaded

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
    """A pattern skipped by its first character is one that could not have matched."""
    import re

    from vybe import privacy
    from vybe.privacy.rules import ALLOW, STOPWORDS

    tried = any(re.search(p, secret) for p in ALLOW) or any(w in secret.lower() for w in STOPWORDS)
    assert privacy._globally_allowed(secret) is tried


def test_a_token_of_a_rules_own_prefix_compiles_only_the_allow_patterns_it_could_match():
    from vybe import privacy
    from vybe.privacy.rules import ALLOW

    privacy._GLOBAL.clear()
    privacy._globally_allowed("github_pat_11ABCDEFG0abcdefghijklmnop")
    assert 0 < len(privacy._GLOBAL) < len(ALLOW)
    assert all(privacy._first_character(p) is None for p in privacy._GLOBAL)


@pytest.mark.parametrize(
    ("pattern", "first"),
    [
        (r"^\$(?:\d+)$", "$"),
        (r"^%[a-z]%$", "%"),
        (r"^/(?:bin|usr)/x$", "/"),
        (r"^$", None),  # an end anchor, not a dollar sign
        (r"^/bin|usr", None),  # matches "usr" anywhere
        (r"^@(?:a|b)[|]\|x", "@"),  # every other | is grouped, in a class or escaped
        (r"(?i)^true|false", None),
    ],
)
def test_a_pattern_is_skipped_by_its_first_character_only_when_every_match_has_it(pattern, first):
    from vybe import privacy

    assert privacy._first_character(pattern) == first
