"""`vybe setup`: every file it writes for Claude Code and Codex, its diff first, and an undo
that puts each file back byte for byte (or, where the agent changed it since, takes out only
vybe's entries)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

# A person's own files, as the agents leave them (one-line JSON, their own hook, a TOML
# table of theirs): setup must keep every byte of them apart from its own entries.
SETTINGS = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-own"}]}]}}'
STATE = '{\n  "numStartups": 3,\n  "projects": {}\n}\n'
CODEX = 'model = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n'


@pytest.fixture
def homes(vybe) -> dict[str, Path]:
    """A scratch HOME holding both agents' config folders, with the person's own files."""
    claude, codex = vybe.home / ".claude", vybe.home / ".codex"
    claude.mkdir()
    codex.mkdir()
    (claude / "settings.json").write_text(SETTINGS)
    (vybe.home / ".claude.json").write_text(STATE)
    (codex / "config.toml").write_text(CODEX)
    vybe.env["PATH"] = "/usr/bin:/bin"  # neither agent's executable: found by its folder
    return {
        "settings": claude / "settings.json",
        "state": vybe.home / ".claude.json",
        "hooks": codex / "hooks.json",
        "toml": codex / "config.toml",
    }


def store_env(vybe) -> dict[str, str]:
    """What each MCP entry must name: the test's store is never the default one."""
    if vybe.location.startswith("postgresql://"):
        return {"VYBE_DB_URL": vybe.location}
    return {"VYBE_DB_PATH": str(vybe.db_path)}


def snapshot(files: dict[str, Path]) -> dict[str, bytes | None]:
    return {name: path.read_bytes() if path.exists() else None for name, path in files.items()}


def test_a_dry_run_shows_each_files_diff_and_writes_nothing(vybe, homes):
    before = snapshot(homes)
    data = vybe.ok("setup", "--dry-run")
    assert data["agents"] == ["claude", "codex"]
    assert all(c["changed"] and c["diff"].startswith("--- ") for c in data["changes"])
    assert snapshot(homes) == before
    assert not (vybe.home / "config" / "setup.json").exists()


def test_setup_wires_both_agents_and_ends_with_what_only_the_person_can_do(vybe, homes):
    data = vybe.ok("setup")
    settings = json.loads(homes["settings"].read_text())
    assert settings["hooks"]["Stop"][0]["hooks"][0]["command"] == "my-own"
    assert any(
        "hook run claude" in h["command"] for g in settings["hooks"]["Stop"] for h in g["hooks"]
    )
    assert "statusline" in settings["statusLine"]["command"]
    state = json.loads(homes["state"].read_text())
    server = state["mcpServers"]["vybe"]
    assert state["numStartups"] == 3 and server["args"][-3:] == ["mcp", "--agent", "claude"]
    assert server["env"] == store_env(vybe)  # not the default store
    toml = tomllib.loads(homes["toml"].read_text())
    assert toml["profiles"] == {"fast": {"model": "o4-mini"}}
    entry = toml["mcp_servers"]["vybe"]
    assert entry["required"] is True and entry["env"] == store_env(vybe)
    if "VYBE_DB_PATH" in store_env(vybe):  # a server's store needs no writable root
        assert toml["sandbox_workspace_write"]["writable_roots"] == [str(vybe.home)]
    assert homes["toml"].read_text().startswith(CODEX)  # appended, the person's text kept
    assert [s for s in data["you_do"] if "Trust all" in s]
    assert vybe.ok("status")["db"]["exists"]


def test_setup_twice_changes_nothing_the_second_time(vybe, homes):
    vybe.ok("setup")
    after = snapshot(homes)
    data = vybe.ok("setup")
    assert [c["changed"] for c in data["changes"]] == [False] * 4
    assert snapshot(homes) == after


def test_undo_puts_every_file_back_byte_for_byte_and_removes_what_setup_made(vybe, homes):
    before = snapshot(homes)
    vybe.ok("setup")
    vybe.ok("setup")
    undone = vybe.ok("setup", "--undo")["undone"]
    assert {u["restored"] for u in undone} == {"as it was before setup"}
    assert snapshot(homes) == before
    assert before["hooks"] is None and not homes["hooks"].exists()


def test_undo_keeps_what_the_agent_changed_since_and_takes_out_only_vybes_entries(vybe, homes):
    vybe.ok("setup")
    state = json.loads(homes["state"].read_text())
    homes["state"].write_text(json.dumps({**state, "numStartups": 4}))  # Claude ran since
    vybe.ok("setup", "--undo")
    assert json.loads(homes["state"].read_text()) == {
        "numStartups": 4,
        "projects": {},
        "mcpServers": {},
    }
    assert homes["settings"].read_text() == SETTINGS


@pytest.mark.sqlite_only("a store on a server needs no writable root in Codex's sandbox")
def test_a_sandbox_table_of_the_persons_own_is_left_to_them_with_the_line_to_add(vybe, homes):
    homes["toml"].write_text(CODEX + "\n[sandbox_workspace_write]\nnetwork_access = true\n")
    data = vybe.ok("setup", "--codex")
    assert data["agents"] == ["codex"]
    assert (
        "writable_roots" not in tomllib.loads(homes["toml"].read_text())["sandbox_workspace_write"]
    )
    assert [s for s in data["you_do"] if f'writable_roots = ["{vybe.home}"]' in s]


def test_an_unreadable_agent_file_is_refused_and_nothing_is_written(vybe, homes):
    homes["state"].write_text("{not json")
    before = snapshot(homes)
    vybe.refused("SETTINGS_UNREADABLE", "setup")
    assert snapshot(homes) == before


def test_with_no_agent_found_setup_says_how_to_name_one(vybe, tmp_path):
    vybe.env["PATH"] = "/usr/bin:/bin"
    result = vybe.refused("NOT_FOUND", "setup")
    assert "--claude" in result.envelope["suggested_action"]


def test_undo_takes_no_other_flag(vybe, homes):
    vybe.refused("USAGE_ERROR", "setup", "--undo", "--dry-run", exit_code=2)


def test_setup_with_an_agent_writes_it_as_the_default_agent(vybe):
    done = vybe.ok("setup", "--claude", "--agent", "alice")
    assert done["default_agent_written"].endswith("config.yaml")
    assert "VYBE_AGENT" not in vybe.env
    assert vybe.ok("status")["agent"] == "alice"
