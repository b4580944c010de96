"""The payload fixtures are real: captured from Claude Code and Codex by ``make e2e --capture``.

Each fixture is run through its handler with a payload that notes every field read; a field
vybe reads that the real CLI does not send fails here (a handler written against a guess).
"""

from __future__ import annotations

import json

import pytest

from tests.integrations.conftest import FIXTURES
from vybe import config
from vybe.cli import hook_run
from vybe.integrations import hooks

CAPTURED = sorted((p.parent.name, p.stem) for p in FIXTURES.glob("*/*.json"))
# Fields a handler reads only when an agent sends them: named here, one reason each.
OPTIONAL = {
    ("claude", "source"): "SessionStart only; other events never read it",
    ("codex", "prompt_id"): "Claude's prompt id, kept when present; Codex sends turn_id",
}


class Reading(dict):
    """A payload that remembers which fields were asked for."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.asked: set[str] = set()

    def get(self, key, default=None):
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.asked.add(key)
        return super().__getitem__(key)


def fields_read(agent, monkeypatch, target: str, name: str) -> tuple[set[str], set[str]]:
    for key, value in agent.vybe.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(agent.project)
    payload = Reading(agent.event(target, name))
    event = payload["hook_event_name"]
    payload.asked.clear()
    hook = hooks.Hook(target, event, payload, target, config.load(target))
    try:
        hook_run.handlers(target)[event](hook)
    finally:
        hook.close()
    return payload.asked, set(payload)


def test_the_fixtures_are_the_captured_ones():
    assert ("claude", "session_start_startup") in CAPTURED
    assert ("codex", "post_tool_use_failed_bash") in CAPTURED
    for target, name in CAPTURED:
        payload = json.loads((FIXTURES / target / f"{name}.json").read_text())
        assert payload["session_id"] and payload["hook_event_name"], (target, name)
        assert payload["cwd"] == "{cwd}", (target, name)  # scrubbed, filled in by the tests


@pytest.mark.parametrize(("target", "name"), CAPTURED)
def test_every_field_a_handler_reads_is_in_the_real_payload(agent, monkeypatch, target, name):
    asked, sent = fields_read(agent, monkeypatch, target, name)
    missing = {f for f in asked - sent if (target, f) not in OPTIONAL}
    assert not missing, f"{target} {name}: vybe reads {sorted(missing)}, the CLI never sends it"
