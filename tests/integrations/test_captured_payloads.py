"""The payload fixtures are real: captured from Claude Code, Codex and Gemini CLI by ``make e2e
--capture``.

Each fixture is run through its handler with a payload that notes every field read; a field
vybe reads that the real CLI does not send fails here (a handler written against a guess).
"""

from __future__ import annotations

import json

import pytest

from tests.integrations.conftest import FIXTURES, target_of
from vybe import config
from vybe.cli import hook_run
from vybe.integrations.hooks import hook as hooks

CAPTURED = sorted((p.parent.name, p.stem) for p in FIXTURES.glob("*/*.json"))
# Fields a handler reads only when an agent sends them: named here, one reason each.
OPTIONAL = {
    ("claude", "source"): "SessionStart only; other events never read it",
    ("codex", "prompt_id"): "Claude's prompt id, kept when present; Codex sends turn_id",
    ("gemini", "prompt_id"): "Claude's prompt id, kept when present; Gemini CLI sends none",
    ("gemini", "tool_use_id"): "Claude's call id, kept when present; Gemini CLI sends none",
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
    event, target = payload["hook_event_name"], target_of(target)
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
    missing = {f for f in asked - sent if (target_of(target), f) not in OPTIONAL}
    assert not missing, f"{target} {name}: vybe reads {sorted(missing)}, the CLI never sends it"


# ---- the newest version against the pinned one (make e2e-latest --capture: <target>@<version>)

STATUS_LINES = FIXTURES.parents[1] / "fixtures" / "statusline"
NEWER = sorted(p.name for p in FIXTURES.iterdir() if "@" in p.name)
# Fields a newer version sends no more, one reason each (vybe reads what replaced them).
DROPPED = {
    ("claude@2.1.332", "post_tool_use_ok_exit_plan_mode", "tool_input.plan"): (
        "the plan is in tool_response.plan, or in the file tool_response.filePath names"
    ),
    ("claude@2.1.332", "post_tool_use_ok_exit_plan_mode", "tool_input.planFilePath"): (
        "the same path is tool_response.filePath"
    ),
    ("claude@2.1.332", "post_tool_use_ok_exit_plan_mode", "tool_response.planWasEdited"): (
        "vybe reads the plan as approved, edited or not"
    ),
}
# Fields a version added that vybe's docs and the issue name: a capture without them fails.
ADDED = {
    ("claude@2.1.332", "session_start_resume"): {
        "context_tokens": int,
        "estimated_cache_write_usd": (int, float),
        "prompt_cache_likely_expired": bool,
        "seconds_since_last_response": int,
    },
}


def field_paths(value: object, prefix: str = "") -> set[str]:
    """Every key of a payload, nested ones dotted (``tool_response.filePath``)."""
    if not isinstance(value, dict):
        return set()
    paths = {f"{prefix}{key}" for key in value}
    return paths.union(*(field_paths(v, f"{prefix}{k}.") for k, v in value.items()))


def pinned_and_newer() -> list[tuple[str, str]]:
    """(newer folder, fixture name) for each payload both the pinned and newer CLI sent."""
    return [
        (folder, path.stem)
        for folder in NEWER
        for path in sorted((FIXTURES / target_of(folder)).glob("*.json"))
        if (FIXTURES / folder / path.name).exists()
    ]


def read(path) -> dict:
    return json.loads(path.read_text())


def test_the_newest_claude_code_is_captured_beside_the_pinned_one():
    assert "claude@2.1.332" in NEWER
    assert (STATUS_LINES / "claude@2.1.332.json").exists()


@pytest.mark.parametrize("folder", NEWER)
def test_a_newer_version_sends_every_payload_the_pinned_one_sends(folder):
    pinned = {p.name for p in (FIXTURES / target_of(folder)).glob("*.json")}
    newer = {p.name for p in (FIXTURES / folder).glob("*.json")}
    assert pinned <= newer, f"{folder} sent none of {sorted(pinned - newer)}"


@pytest.mark.parametrize(("folder", "name"), pinned_and_newer())
def test_a_newer_version_sends_every_field_the_pinned_one_sends(folder, name):
    pinned = field_paths(read(FIXTURES / target_of(folder) / f"{name}.json"))
    newer = field_paths(read(FIXTURES / folder / f"{name}.json"))
    gone = {path for path in pinned - newer if (folder, name, path) not in DROPPED}
    assert not gone, f"{folder} {name}: no more {sorted(gone)}"


@pytest.mark.parametrize("folder", NEWER)
def test_a_newer_status_line_json_has_every_field_the_pinned_one_has(folder):
    newest = STATUS_LINES / f"{folder}.json"
    if not newest.exists():
        pytest.skip(f"{folder}: no status line captured")  # Codex has no status line command
    gone = field_paths(read(STATUS_LINES / f"{target_of(folder)}.json")) - field_paths(read(newest))
    assert not gone, f"{folder}'s status line JSON: no more {sorted(gone)}"


@pytest.mark.parametrize(("folder", "name"), sorted(ADDED))
def test_the_fields_a_version_added_are_in_its_captured_payloads(folder, name):
    payload = read(FIXTURES / folder / f"{name}.json")
    for field, kind in ADDED[(folder, name)].items():
        assert isinstance(payload.get(field), kind), (field, payload)


def test_every_field_named_dropped_was_sent_by_the_pinned_version_and_is_gone():
    for folder, name, path in DROPPED:
        assert path in field_paths(read(FIXTURES / target_of(folder) / f"{name}.json"))
        assert path not in field_paths(read(FIXTURES / folder / f"{name}.json"))
