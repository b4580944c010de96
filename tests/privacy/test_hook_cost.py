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
