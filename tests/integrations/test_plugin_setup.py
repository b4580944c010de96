"""The Claude Code plugin installed by the real `claude plugin` commands, and `vybe setup` /
`vybe doctor` reading the files those commands write: vybe is registered in Claude Code
once, by the plugin or by setup, and doctor says which (and warns when both are)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT / ".cache" / "e2e" / "node_modules" / ".bin" / "claude"

pytestmark = pytest.mark.skipif(
    not CLAUDE.exists(), reason=f"{CLAUDE} is not installed (make e2e installs it)"
)


def claude(vybe, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(vybe.home),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    done = subprocess.run(
        [str(CLAUDE), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture
def plugin(vybe) -> Path:
    """The vybe plugin installed from this repository, as a person installs it."""
    claude(vybe, "plugin", "marketplace", "add", str(ROOT))
    claude(vybe, "plugin", "install", "vybe@vybe")
    return vybe.home / ".claude" / "settings.json"


def registration(vybe) -> dict:
    checks = vybe.ok("doctor")["checks"]
    return next(c for c in checks if c["name"] == "claude_registration")


def test_setup_sees_the_plugin_and_leaves_claude_codes_settings_alone(vybe, plugin):
    before = plugin.read_bytes()
    data = vybe.ok("setup", "--claude")
    assert data["claude_plugin"]["installed"] == ["vybe@vybe"]
    assert "leaves Claude Code's settings alone" in data["claude_plugin"]["note"]
    assert data["changes"] == []
    assert plugin.read_bytes() == before
    assert not (vybe.home / ".claude.json").exists() or "vybe" not in json.loads(
        (vybe.home / ".claude.json").read_text()
    ).get("mcpServers", {})


def test_with_the_plugin_setup_statusline_writes_only_the_status_line(vybe, plugin):
    before = json.loads(plugin.read_text())
    vybe.ok("setup", "--statusline")
    after = json.loads(plugin.read_text())
    assert after.pop("statusLine")["command"].endswith("statusline")
    assert after == before


def test_doctor_says_the_plugin_is_what_registers_vybe(vybe, plugin):
    check = registration(vybe)
    assert (check["ok"], check["active"], check["plugin"]) == (True, "plugin", ["vybe@vybe"])


def test_doctor_warns_when_both_the_plugin_and_setup_register_vybe(vybe):
    vybe.ok("setup", "--claude")
    assert registration(vybe)["active"] == "setup"
    claude(vybe, "plugin", "marketplace", "add", str(ROOT))
    claude(vybe, "plugin", "install", "vybe@vybe")
    check = registration(vybe)
    assert (check["ok"], check["active"]) == (False, "both")
    assert "registered twice" in check["warning"]


def test_a_disabled_plugin_is_not_active_and_setup_wires_claude_code_again(vybe, plugin):
    claude(vybe, "plugin", "disable", "vybe@vybe")
    assert registration(vybe)["active"] == "none"
    data = vybe.ok("setup", "--claude")
    assert data["claude_plugin"] is None
    assert "hooks" in json.loads(plugin.read_text())


def test_after_plugin_uninstall_no_vybe_hook_is_left_behind(vybe, plugin):
    claude(vybe, "plugin", "uninstall", "vybe@vybe")
    check = registration(vybe)
    assert (check["active"], check["setup"]["hooks"]) == ("none", [])
    assert "hooks" not in json.loads(plugin.read_text())
