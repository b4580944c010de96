"""The plugin in plugin/ (a Claude Code manifest and its Codex twin) and the marketplaces at
the root agree with the package: the same hooks `vybe setup` registers for each agent (from
the hook registry's defaults), the package's version, an MCP server for `vybe mcp`, and a
hook wrapper and MCP command that never fail a session."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

import vybe
from vybe.integrations.setup.manifest import DEFAULT

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugin"
# Each agent's hooks file, and the variable its hooks find the plugin's folder in.
HOOKS = {
    "claude": ("hooks/hooks.json", '"${CLAUDE_PLUGIN_ROOT}/hooks/vybe.sh"'),
    "codex": ("hooks/codex.json", '"${PLUGIN_ROOT}/hooks/vybe.sh"'),
}
INSTALL_LINE = (
    "vybe: the vybe command is not on PATH; install it from a clone of vybe with:"
    " pipx install '.[mcp,postgres]'"
)


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_the_plugins_hooks_are_the_events_matchers_and_timeouts_setup_registers(agent):
    path, wrapper = HOOKS[agent]
    hooks = _load(PLUGIN / path)["hooks"]
    found = [
        (event, group.get("matcher"), handler["timeout"], handler["command"])
        for event, groups in hooks.items()
        for group in groups
        for handler in group["hooks"]
    ]
    wanted = [
        (s.event, s.matcher, s.timeout, f"{wrapper} {agent} {s.event}") for s in DEFAULT[agent]
    ]
    assert found == wanted


def test_the_codex_manifest_names_the_codex_hooks_mcp_servers_and_skills():
    manifest = _load(PLUGIN / ".codex-plugin" / "plugin.json")
    assert (manifest["hooks"], manifest["mcpServers"], manifest["skills"]) == (
        "./hooks/codex.json",
        "./.codex-mcp.json",
        "./skills/",
    )


def test_the_plugin_and_its_marketplace_entry_carry_the_packages_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and project["dynamic"] == ["version"]  # vybe.__version__
    plugin = _load(PLUGIN / ".claude-plugin" / "plugin.json")
    market = _load(ROOT / ".claude-plugin" / "marketplace.json")
    entry = next(p for p in market["plugins"] if p["name"] == plugin["name"])
    assert plugin["version"] == entry["version"] == vybe.__version__
    assert entry["source"] == "./plugin"
    assert {"name", "version", "description", "author", "license", "homepage"} <= set(plugin)


def test_the_codex_twin_and_its_marketplace_entry_carry_the_packages_name_and_version():
    """Codex reads .agents/plugins/marketplace.json before .claude-plugin/marketplace.json, and
    .codex-plugin/plugin.json before the Claude manifest; its entries carry no version (the
    manifest's names the installed copy's folder)."""
    twin = _load(PLUGIN / ".codex-plugin" / "plugin.json")
    claude = _load(PLUGIN / ".claude-plugin" / "plugin.json")
    market = _load(ROOT / ".agents" / "plugins" / "marketplace.json")
    entry = next(p for p in market["plugins"] if p["name"] == twin["name"])
    assert twin["version"] == vybe.__version__
    assert twin["name"] == claude["name"] == market["name"] == "vybe"
    assert entry["source"] == {"source": "local", "path": "./plugin"}
    assert {"name", "version", "description", "author", "license", "homepage"} <= set(twin)


def test_the_plugins_mcp_server_is_vybe_mcp_as_claude():
    server = _load(PLUGIN / ".mcp.json")["mcpServers"]["vybe"]
    assert [server["command"], *server["args"]] == ["vybe", "mcp", "--agent", "claude"]


def _codex_mcp(path: str, *requests: dict) -> subprocess.CompletedProcess:
    """The Codex twin's MCP command, as Codex starts it (the session's folder, few variables),
    with ``requests`` on its stdin."""
    server = _load(PLUGIN / ".codex-mcp.json")["mcpServers"]["vybe"]
    return subprocess.run(
        [server["command"], *server["args"]],
        input="".join(json.dumps(r) + "\n" for r in requests),
        env={"PATH": path, "HOME": os.environ.get("HOME", "/")},
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )


def test_the_codex_mcp_server_is_required_and_is_given_the_stores_variables():
    server = _load(PLUGIN / ".codex-mcp.json")["mcpServers"]["vybe"]
    assert server["required"] is True  # codex exec lists the tools of a server it waits for
    assert {"VYBE_DB_PATH", "VYBE_DB_URL", "VYBE_CONFIG_DIR"} <= set(server["env_vars"])


def test_with_vybe_on_path_the_codex_mcp_command_runs_vybe_mcp_as_codex(tmp_path):
    fake = tmp_path / "vybe"
    fake.write_text('#!/bin/sh\necho "ran: $*"\n')
    fake.chmod(0o755)
    done = _codex_mcp(f"{tmp_path}:/usr/bin:/bin")
    assert done.stdout == "ran: mcp --agent codex\n"


def test_without_vybe_the_codex_mcp_command_answers_the_handshake_with_no_tools(tmp_path):
    """A required server that fails stops every Codex session: without vybe the command
    answers as an MCP server with no tools, its instructions saying how to install vybe."""
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "c"}}
    done = _codex_mcp(
        f"{tmp_path}:/usr/bin:/bin",
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": "p", "method": "ping"},
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0
    assert [(a["id"], a["result"].get("protocolVersion")) for a in answers] == [
        (0, "2025-06-18"),
        (1, None),
        ("p", None),
    ]
    assert answers[0]["result"]["instructions"] == INSTALL_LINE
    assert answers[1]["result"] == {"tools": []}


def _wrapper(event: str, path: str, agent: str = "claude") -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PLUGIN / "hooks" / "vybe.sh"), agent, event],
        input=json.dumps({"hook_event_name": event}),
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )


def test_without_vybe_on_path_session_start_says_how_to_install_it_in_one_line(tmp_path):
    for agent in ("claude", "codex"):
        done = _wrapper("SessionStart", f"{tmp_path}:/usr/bin:/bin", agent)
        assert done.returncode == 0
        assert done.stdout.splitlines() == [INSTALL_LINE]


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_without_vybe_on_path_every_other_hook_exits_0_silently(agent, tmp_path):
    for spec in DEFAULT[agent][1:]:
        done = _wrapper(spec.event, f"{tmp_path}:/usr/bin:/bin", agent)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_with_vybe_on_path_the_wrapper_runs_vybe_hook_run_for_its_agent(agent, tmp_path):
    fake = tmp_path / "vybe"
    fake.write_text('#!/bin/sh\necho "ran: $*"\n')
    fake.chmod(0o755)
    done = _wrapper("Stop", f"{tmp_path}:/usr/bin:/bin", agent)
    assert done.stdout == f"ran: hook run {agent}\n"


# The real Claude Code CLIs `make e2e` (pinned) and `make e2e-latest` (newest) install.
CLAUDES = [
    ROOT / ".cache" / folder / "node_modules" / ".bin" / "claude"
    for folder in ("e2e", "e2e-latest")
]


def _claude(executable: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    return subprocess.run(
        [str(executable), *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("executable", CLAUDES, ids=["pinned", "newest"])
@pytest.mark.parametrize("target", [ROOT, PLUGIN], ids=["marketplace", "plugin"])
def test_claude_plugin_validate_strict_passes(executable, target, tmp_path):
    if not executable.exists():
        pytest.skip(f"{executable} is not installed (make e2e / make e2e-latest install it)")
    done = _claude(executable, tmp_path, "plugin", "validate", "--strict", str(target))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Validation passed" in done.stdout
