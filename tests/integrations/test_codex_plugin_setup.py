"""The Codex twin of the plugin installed by the real `codex plugin` commands (they work
offline: a local marketplace), and `vybe setup` / `vybe doctor` reading the config.toml and
plugin cache those commands write: vybe is registered in Codex once, by the plugin or by
setup, and doctor says which (and warns when both are), and what the plugin's hooks still
need (Codex's trust)."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODEX = ROOT / ".cache" / "e2e" / "node_modules" / ".bin" / "codex"
EVENTS = ("session_start", "user_prompt_submit", "post_tool_use", "pre_compact", "stop")

pytestmark = pytest.mark.skipif(
    not CODEX.exists(), reason=f"{CODEX} is not installed (make e2e installs it)"
)


def codex(vybe, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(vybe.home),
        "CODEX_HOME": vybe.env["CODEX_HOME"],
    }
    done = subprocess.run(
        [str(CODEX), "plugin", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture
def home(vybe, tmp_path) -> Path:
    vybe.env.pop("TMPDIR", None)
    vybe.env["CODEX_HOME"] = str(tmp_path / "codex-home")
    (tmp_path / "codex-home").mkdir()
    return tmp_path / "codex-home"


@pytest.fixture
def plugin(vybe, home) -> Path:
    """The vybe plugin installed from this repository, as a person installs it in Codex."""
    codex(vybe, "marketplace", "add", str(ROOT))
    codex(vybe, "add", "vybe@vybe")
    return home / "config.toml"


def checks(vybe) -> dict:
    return {c["name"]: c for c in vybe.ok("doctor")["checks"]}


@pytest.mark.sqlite_only("the writable root setup adds is the SQLite file's folder")
def test_setup_sees_the_plugin_and_writes_neither_hooks_nor_an_mcp_server(vybe, plugin):
    data = vybe.ok("setup", "--codex")
    assert data["codex_plugin"]["installed"] == ["vybe@vybe"]
    assert "leaves hooks.json and [mcp_servers.vybe] alone" in data["codex_plugin"]["note"]
    assert not (plugin.parent / "hooks.json").exists()
    table = tomllib.loads(plugin.read_text())
    assert "vybe" not in table.get("mcp_servers", {})
    assert table["plugins"] == {"vybe@vybe": {"enabled": True}}
    # What a plugin cannot carry, setup still adds: the store's folder among the writable roots.
    assert table["sandbox_workspace_write"]["writable_roots"] == [str(vybe.home)]
    assert [c["what"] for c in data["changes"]] == [[f"writable root: {vybe.home}"]]


@pytest.mark.sqlite_only("the writable root setup adds is the SQLite file's folder")
def test_setup_ends_with_the_trust_step_until_codex_trusts_the_plugins_hooks(vybe, plugin):
    assert any("Trust all" in step for step in vybe.ok("setup", "--codex")["you_do"])
    problems = checks(vybe)["codex_setup"]["detail"]["problems"]
    assert any("has not trusted vybe's hooks" in p for p in problems)
    keys = [f'[hooks.state."vybe@vybe:hooks/codex.json:{e}:0:0"]' for e in EVENTS]
    with plugin.open("a") as handle:  # as the TUI's /hooks "Trust all" records it
        handle.write("".join(f'\n{k}\ntrusted_hash = "sha256:1"\n' for k in keys))
    assert not any("Trust all" in step for step in vybe.ok("setup", "--codex")["you_do"])
    assert checks(vybe)["codex_setup"]["ok"] is True


def test_doctor_says_the_plugin_is_what_registers_vybe_in_codex(vybe, plugin):
    check = checks(vybe)["codex_registration"]
    assert (check["ok"], check["active"], check["plugin"]) == (True, "plugin", ["vybe@vybe"])


def test_doctor_warns_when_both_the_plugin_and_setup_register_vybe_in_codex(vybe, home):
    vybe.ok("setup", "--codex")
    assert checks(vybe)["codex_registration"]["active"] == "setup"
    codex(vybe, "marketplace", "add", str(ROOT))
    codex(vybe, "add", "vybe@vybe")
    check = checks(vybe)["codex_registration"]
    assert (check["ok"], check["active"]) == (False, "both")
    assert "registered twice in Codex" in check["warning"]
    assert "codex plugin remove vybe@vybe" in check["warning"]


def test_a_disabled_plugin_is_not_active_and_setup_wires_codex_again(vybe, plugin):
    plugin.write_text(plugin.read_text().replace("enabled = true", "enabled = false"))
    assert checks(vybe)["codex_registration"]["active"] == "none"
    data = vybe.ok("setup", "--codex")
    assert data["codex_plugin"] is None
    assert (plugin.parent / "hooks.json").exists()
    assert "vybe" in tomllib.loads(plugin.read_text())["mcp_servers"]


def test_after_codex_plugin_remove_nothing_of_vybe_is_registered(vybe, plugin):
    codex(vybe, "remove", "vybe@vybe")
    check = checks(vybe)["codex_registration"]
    assert (check["active"], check["plugin"], check["setup"]["hooks"]) == ("none", [], [])
    assert "plugins" not in tomllib.loads(plugin.read_text())
