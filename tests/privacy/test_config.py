"""privacy.redact, privacy.patterns and privacy.allow in config.yaml: read through the
settings' cache, a pattern that does not compile refused with CONFIG_INVALID and nothing
written."""

from __future__ import annotations

import pytest

from tests.privacy.planted import planted


def configure(vybe, text: str) -> None:
    (vybe.home / "config").mkdir(exist_ok=True)
    (vybe.home / "config" / "config.yaml").write_text(f"default_agent: default\n{text}")


def stored_value(vybe) -> str:
    return vybe.sql("SELECT value FROM memory WHERE key = 'k'")[0][0]


def test_redaction_is_on_by_default(vybe):
    _, secret, line = planted()[2]
    vybe.ok("memory", "set", "-k", "k", "-v", line)
    assert secret not in stored_value(vybe)
    assert "[REDACTED:" in stored_value(vybe)


def test_redact_false_keeps_secrets_but_still_strips_private_spans(vybe):
    configure(vybe, "privacy:\n  redact: false\n")
    _, secret, line = planted()[2]
    vybe.ok("memory", "set", "-k", "k", "-v", f"{line} <private>mine</private>")
    assert secret in stored_value(vybe)
    assert "mine" not in stored_value(vybe)


def test_a_users_pattern_is_redacted_under_its_own_name(vybe):
    configure(vybe, "privacy:\n  patterns:\n    - id: employee-id\n      regex: 'EMP-[0-9]{6}'\n")
    vybe.ok("memory", "set", "-k", "k", "-v", "badge EMP-123456 for Ann")
    assert stored_value(vybe) == "badge [REDACTED:employee-id] for Ann"


def test_the_allow_list_lets_a_known_value_through(vybe):
    _, secret, line = planted()[2]
    configure(vybe, f"privacy:\n  allow:\n    - '{secret}'\n")
    vybe.ok("memory", "set", "-k", "k", "-v", line)
    assert secret in stored_value(vybe)


@pytest.mark.parametrize(
    "privacy",
    [
        "privacy:\n  patterns:\n    - 'unclosed[group'\n",
        "privacy:\n  allow:\n    - '(?P<bad'\n",
        "privacy:\n  redact: sometimes\n",
        "privacy:\n  patterns: EMP-1\n",
        "privacy: [1]\n",
    ],
)
def test_a_bad_privacy_setting_is_config_invalid_and_writes_nothing(vybe, privacy):
    vybe.ok("memory", "set", "-k", "before", "-v", "kept")
    configure(vybe, privacy)
    refused = vybe.refused("CONFIG_INVALID", "memory", "set", "-k", "k", "-v", "v")
    assert refused.envelope["error_context"]["field"].startswith("privacy")
