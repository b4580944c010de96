"""A memory's key is written like its value: scrubbed, and looked up the same way; and its
value is read in its key's light, so a credential whose name alone says what it is
(``DEPLOY_TOKEN`` and a random value) is redacted as the assignment ``KEY=value`` is."""

from __future__ import annotations

from tests.privacy.planted import planted
from tests.privacy.test_planted_secrets import store_bytes

RANDOM = "Xk29fQpL7mZr3TbWv8NcYs4Hd"  # what a token looks like; no shape of its own


def stored(vybe) -> list[tuple[str, str]]:
    return vybe.sql("SELECT key, value FROM memory ORDER BY key")


def test_a_value_named_by_a_credentials_key_is_redacted(vybe):
    vybe.ok("memory", "set", "-k", "DEPLOY_TOKEN", "-v", RANDOM)
    vybe.ok("remember", f"WEBHOOK_SECRET={RANDOM}z")
    vybe.ok("memory", "set", "-k", "deploy.window", "-v", "Tuesdays 10-12, 4 people")
    assert stored(vybe) == [
        ("DEPLOY_TOKEN", "[REDACTED:generic-api-key]"),
        ("WEBHOOK_SECRET", "[REDACTED:generic-api-key]"),
        ("deploy.window", "Tuesdays 10-12, 4 people"),
    ]
    assert RANDOM.encode() not in store_bytes(vybe)


def test_a_key_loses_its_private_span_and_secret_and_is_found_as_typed(vybe):
    _, secret, _ = next(p for p in planted() if p[0] == "stripe")
    key = f"stripe <private>acct of my aunt</private>{secret}"
    vybe.ok("memory", "set", "-k", key, "-v", "live since May")
    vybe.ok("memory", "set", "-k", key, "-v", "live since June")  # the same entry, replaced
    assert stored(vybe) == [("stripe [REDACTED:stripe-access-token]", "live since June")]
    assert vybe.ok("memory", "get", "-k", key)["memory"]["value"] == "live since June"
    dump = vybe.dump()
    assert secret not in dump and "my aunt" not in dump
