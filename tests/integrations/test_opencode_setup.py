"""`vybe setup --opencode`: OpenCode's ``anthropic`` provider pointed at `vybe proxy` in its
global config (the person's own keys kept), once however often it runs, and an undo that
puts the file back byte for byte (or takes out only the base URL where OpenCode's config
changed since); a base URL of the person's own is left to them, with the line to change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vybe.integrations.setup import opencode

# The person's own config, one line, with a provider of theirs and a model chosen.
OWN = '{"model": "anthropic/claude-sonnet-4-5", "provider": {"ollama": {"npm": "x"}}}'


@pytest.fixture
def config(vybe) -> Path:
    """OpenCode's global config in a scratch XDG_CONFIG_HOME, holding the person's file."""
    vybe.env["XDG_CONFIG_HOME"] = str(vybe.home / "xdg")
    vybe.env["PATH"] = "/usr/bin:/bin"  # no agent's executable: OpenCode found by its folder
    path = vybe.home / "xdg" / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    path.write_text(OWN)
    return path


def test_setup_points_opencodes_provider_at_the_proxy_and_keeps_the_persons_keys(vybe, config):
    data = vybe.ok("setup")
    assert data["agents"] == ["opencode"]  # found by its config folder
    document = json.loads(config.read_text())
    assert document["provider"]["anthropic"] == {"options": {"baseURL": opencode.PROXY_URL}}
    assert document["model"] == "anthropic/claude-sonnet-4-5"
    assert document["provider"]["ollama"] == {"npm": "x"}
    assert opencode.START in data["you_do"]
    again = vybe.ok("setup", "--opencode")
    assert [c["changed"] for c in again["changes"]] == [False]


def test_a_dry_run_shows_the_diff_and_writes_nothing(vybe, config):
    data = vybe.ok("setup", "--opencode", "--dry-run")
    assert opencode.PROXY_URL in data["changes"][0]["diff"]
    assert config.read_text() == OWN


def test_undo_puts_opencodes_config_back_byte_for_byte(vybe, config):
    vybe.ok("setup", "--opencode")
    vybe.ok("setup", "--opencode")
    vybe.ok("setup", "--undo")
    assert config.read_text() == OWN


def test_undo_after_opencode_changed_its_config_takes_out_only_the_base_url(vybe, config):
    vybe.ok("setup", "--opencode")
    document = json.loads(config.read_text())
    config.write_text(json.dumps({**document, "theme": "dark"}))  # changed since
    vybe.ok("setup", "--undo")
    assert json.loads(config.read_text()) == {**json.loads(OWN), "theme": "dark"}


def test_a_base_url_of_the_persons_own_is_left_to_them_with_the_line_to_change(vybe, config):
    own = {"provider": {"anthropic": {"options": {"baseURL": "https://gw.example/v1"}}}}
    config.write_text(json.dumps(own))
    before = config.read_bytes()
    data = vybe.ok("setup", "--opencode")
    assert config.read_bytes() == before
    assert [s for s in data["you_do"] if "https://gw.example/v1" in s and opencode.PROXY_URL in s]


def test_an_unreadable_opencode_config_is_refused_and_nothing_is_written(vybe, config):
    config.write_text("{not json")
    vybe.refused("SETTINGS_UNREADABLE", "setup", "--opencode")
    assert config.read_text() == "{not json"
    assert not (vybe.home / "config" / "setup.json").exists()
