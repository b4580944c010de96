"""The Claude Code plugin in plugin/ and the marketplace at the root agree with the package:
the same hooks `vybe setup` registers (from the hook registry's defaults), the package's
version, an MCP server for `vybe mcp`, and a hook wrapper that never fails a session."""

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
WRAPPER = '"${CLAUDE_PLUGIN_ROOT}/hooks/vybe.sh"'


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_the_plugins_hooks_are_the_events_matchers_and_timeouts_setup_registers():
    hooks = _load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    found = [
        (event, group.get("matcher"), handler["timeout"], handler["command"])
        for event, groups in hooks.items()
        for group in groups
        for handler in group["hooks"]
    ]
    wanted = [(s.event, s.matcher, s.timeout, f"{WRAPPER} {s.event}") for s in DEFAULT["claude"]]
    assert found == wanted


def test_the_plugin_and_its_marketplace_entry_carry_the_packages_version():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and project["dynamic"] == ["version"]  # vybe.__version__
    plugin = _load(PLUGIN / ".claude-plugin" / "plugin.json")
    market = _load(ROOT / ".claude-plugin" / "marketplace.json")
    entry = next(p for p in market["plugins"] if p["name"] == plugin["name"])
    assert plugin["version"] == entry["version"] == vybe.__version__
    assert entry["source"] == "./plugin"
    assert {"name", "version", "description", "author", "license", "homepage"} <= set(plugin)


def test_the_plugins_mcp_server_is_vybe_mcp_as_claude():
    server = _load(PLUGIN / ".mcp.json")["mcpServers"]["vybe"]
    assert [server["command"], *server["args"]] == ["vybe", "mcp", "--agent", "claude"]


def _wrapper(event: str, path: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PLUGIN / "hooks" / "vybe.sh"), event],
        input=json.dumps({"hook_event_name": event}),
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )


def test_without_vybe_on_path_session_start_says_how_to_install_it_in_one_line(tmp_path):
    done = _wrapper("SessionStart", f"{tmp_path}:/usr/bin:/bin")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "vybe: the vybe command is not on PATH; install it from a clone of vybe with:"
        " pipx install '.[mcp,postgres]'"
    ]


def test_without_vybe_on_path_every_other_hook_exits_0_silently(tmp_path):
    for spec in DEFAULT["claude"][1:]:
        done = _wrapper(spec.event, f"{tmp_path}:/usr/bin:/bin")
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_with_vybe_on_path_the_wrapper_runs_vybe_hook_run_claude(tmp_path):
    fake = tmp_path / "vybe"
    fake.write_text('#!/bin/sh\necho "ran: $*"\n')
    fake.chmod(0o755)
    done = _wrapper("Stop", f"{tmp_path}:/usr/bin:/bin")
    assert done.stdout == "ran: hook run claude\n"


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
