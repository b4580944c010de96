"""`vybe setup --gemini` and `vybe hook install --gemini`: vybe's hooks in Gemini CLI's
settings.json (named ``vybe``, timeouts in milliseconds), the person's own entries kept, an
undo byte for byte; `vybe doctor`'s checks of Gemini CLI."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

# A person's settings.json as Gemini CLI leaves it: its auth, a hook of their own.
SETTINGS = (
    '{"security": {"auth": {"selectedType": "gemini-api-key"}},'
    ' "hooks": {"AfterTool": [{"matcher": "write_file",'
    ' "hooks": [{"type": "command", "command": "my-lint", "name": "lint"}]}]}}'
)
EVENTS = ["SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "PreCompress", "SessionEnd"]


@pytest.fixture
def settings(vybe) -> Path:
    folder = vybe.home / ".gemini"
    folder.mkdir()
    (folder / "settings.json").write_text(SETTINGS)
    vybe.env["PATH"] = "/usr/bin:/bin"  # no agent's executable: Gemini CLI found by its folder
    return folder / "settings.json"


def ours(document: dict) -> dict[str, dict]:
    """vybe's handler on each event, with its group's matcher."""
    found = {}
    for event, groups in document["hooks"].items():
        for group in groups:
            for handler in group["hooks"]:
                if "hook run gemini" in handler["command"]:
                    found[event] = {**handler, "matcher": group.get("matcher")}
    return found


def checks_of(vybe) -> dict[str, dict]:
    return {c["name"]: c for c in vybe.ok("doctor")["checks"]}


def test_setup_finds_gemini_cli_by_its_folder_and_writes_named_hooks_in_milliseconds(
    vybe, settings
):
    data = vybe.ok("setup")
    assert data["agents"] == ["gemini"]
    document = json.loads(settings.read_text())
    assert document["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert document["hooks"]["AfterTool"][0]["hooks"][0]["command"] == "my-lint"
    found = ours(document)
    assert sorted(found) == sorted(EVENTS)
    assert {h["name"] for h in found.values()} == {"vybe"}
    assert found["BeforeAgent"]["timeout"] == 10_000 and found["SessionEnd"]["timeout"] == 2_000
    assert found["PreCompress"]["matcher"] == "manual"  # 0.61 fires auto before every call
    assert found["AfterTool"]["matcher"] == "*"
    assert found["SessionStart"]["matcher"] is None  # a lifecycle matcher is one exact word


def test_setup_twice_changes_nothing_and_undo_gives_the_file_back_byte_for_byte(vybe, settings):
    vybe.ok("setup", "--gemini")
    written = settings.read_bytes()
    assert [c["changed"] for c in vybe.ok("setup", "--gemini")["changes"]] == [False]
    assert settings.read_bytes() == written
    vybe.ok("setup", "--undo")
    assert settings.read_text() == SETTINGS


def test_undo_after_gemini_cli_changed_its_settings_takes_out_only_vybes_hooks(vybe, settings):
    vybe.ok("setup", "--gemini")
    document = json.loads(settings.read_text())
    settings.write_text(json.dumps({**document, "ui": {"theme": "dark"}}))  # /theme since
    vybe.ok("setup", "--undo")
    assert json.loads(settings.read_text()) == {**json.loads(SETTINGS), "ui": {"theme": "dark"}}


def test_an_unreadable_settings_file_is_refused_and_left_as_it_was(vybe, settings):
    settings.write_text("{not json")
    vybe.refused("SETTINGS_UNREADABLE", "setup", "--gemini")
    assert settings.read_text() == "{not json"
    assert not (vybe.home / "config" / "setup.json").exists()


def test_gemini_cli_home_moves_the_settings_it_reads(vybe, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    vybe.env["GEMINI_CLI_HOME"] = str(elsewhere)
    vybe.ok("hook", "install", "--gemini")
    assert sorted(ours(json.loads((elsewhere / ".gemini" / "settings.json").read_text()))) == (
        sorted(EVENTS)
    )
    assert not (vybe.home / ".gemini").exists()


def test_hook_install_in_the_project_and_uninstall_take_only_vybes_entries(
    vybe, tmp_path, monkeypatch
):
    project = tmp_path / "proj"
    (project / ".gemini").mkdir(parents=True)
    (project / ".gemini" / "settings.json").write_text(SETTINGS)
    monkeypatch.chdir(project)
    vybe.ok("hook", "install", "--gemini", "--project")
    assert sorted(ours(json.loads((project / ".gemini" / "settings.json").read_text()))) == (
        sorted(EVENTS)
    )
    vybe.ok("hook", "uninstall", "--gemini", "--project")
    assert json.loads((project / ".gemini" / "settings.json").read_text()) == json.loads(SETTINGS)


def test_doctor_checks_gemini_clis_hooks_and_what_turns_them_off(vybe, settings):
    vybe.ok("setup", "--gemini")
    found = checks_of(vybe)
    assert found["hooks_gemini"]["ok"] and found["gemini_setup"]["ok"]
    assert sorted(found["hooks_gemini"]["detail"]["installed"]) == sorted(EVENTS)
    document = json.loads(settings.read_text())
    switches = {"enabled": False, "disabled": ["vybe"]}
    settings.write_text(json.dumps({**document, "hooksConfig": switches}))
    problems = checks_of(vybe)["gemini_setup"]["detail"]["problems"]
    assert not checks_of(vybe)["gemini_setup"]["ok"]
    assert any("hooksConfig.enabled is false" in p for p in problems)
    assert any("/hooks enable vybe" in p for p in problems)


def test_doctor_names_a_stale_or_missing_gemini_hook(vybe, settings):
    vybe.ok("setup", "--gemini")
    document = json.loads(settings.read_text())
    del document["hooks"]["BeforeAgent"]
    settings.write_text(json.dumps(document))
    check = checks_of(vybe)["hooks_gemini"]
    assert not check["ok"] and check["detail"]["missing"] == ["BeforeAgent"]


@pytest.mark.parametrize(
    ("printed", "ok", "note"),
    [("0.61.0", True, None), ("0.62.1", True, "newer"), ("0.55.0", False, "older")],
)
def test_doctor_checks_the_gemini_cli_version(vybe, tmp_path, printed, ok, note):
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "gemini").write_text(f"#!/bin/sh\necho '{printed}'\n")
    (folder / "gemini").chmod(0o755)
    vybe.env["PATH"] = f"{folder}:/usr/bin:/bin"
    check = checks_of(vybe)["version_gemini"]
    assert check["ok"] is ok
    assert (note is None) == ("note" not in check["detail"])
    assert note is None or note in check["detail"]["note"]


def test_doctor_fails_a_gemini_base_url_where_nothing_answers(vybe):
    assert checks_of(vybe)["proxy_gemini"]["ok"]  # not set: no proxy in the way
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    vybe.env["GOOGLE_GEMINI_BASE_URL"] = f"http://127.0.0.1:{port}"
    check = checks_of(vybe)["proxy_gemini"]
    assert not check["ok"] and "nothing answers there" in check["detail"]
