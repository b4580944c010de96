"""`vybe hook install/uninstall/export` against settings files people already have."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import VYBE

OTHERS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "bd prime"}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 3}]}
        ],
    },
}


def _claude_settings(vybe) -> Path:
    return vybe.home / ".claude" / "settings.json"


def _write(path: Path, document: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


def _ours(document: dict, event: str) -> list[dict]:
    return [
        h
        for g in document["hooks"].get(event, [])
        for h in g["hooks"]
        if h["command"].endswith("hook run claude")
    ]


def test_install_keeps_every_other_key_and_hook(vybe):
    path = _claude_settings(vybe)
    _write(path, OTHERS)
    vybe.ok("hook", "install", "--claude")
    document = json.loads(path.read_text())
    assert document["model"] == "opus"
    assert document["permissions"] == OTHERS["permissions"]
    assert document["hooks"]["PreToolUse"] == OTHERS["hooks"]["PreToolUse"]
    assert document["hooks"]["SessionStart"][0] == OTHERS["hooks"]["SessionStart"][0]
    assert len(_ours(document, "SessionStart")) == 1


def test_install_twice_gives_the_same_file(vybe):
    path = _claude_settings(vybe)
    _write(path, OTHERS)
    vybe.ok("hook", "install")
    first = path.read_bytes()
    second = vybe.ok("hook", "install")
    assert path.read_bytes() == first
    assert second["claude"]["written"] is False
    assert second["claude"]["installed"] == []


def test_handler_uses_the_absolute_path_of_the_running_vybe(vybe):
    vybe.ok("hook", "install")
    document = json.loads(_claude_settings(vybe).read_text())
    command = _ours(document, "UserPromptSubmit")[0]["command"]
    assert command == f"{VYBE} hook run claude"
    assert Path(VYBE).is_absolute()


def test_timeouts_are_seconds_of_at_most_ten(vybe):
    vybe.ok("hook", "install", "--claude", "--codex")
    for path in (_claude_settings(vybe), vybe.home / ".codex" / "hooks.json"):
        groups = json.loads(path.read_text())["hooks"].values()
        timeouts = [h["timeout"] for gs in groups for g in gs for h in g["hooks"]]
        assert timeouts and all(1 <= t <= 10 for t in timeouts)


def test_uninstall_removes_only_vybe_and_restores_the_file(vybe):
    path = _claude_settings(vybe)
    _write(path, OTHERS)
    vybe.ok("hook", "install")
    removed = vybe.ok("hook", "uninstall")
    assert "UserPromptSubmit" in removed["claude"]["removed"]
    assert json.loads(path.read_text()) == OTHERS


def test_uninstall_drops_the_hooks_key_it_alone_filled(vybe):
    path = _claude_settings(vybe)
    _write(path, {"model": "opus"})
    vybe.ok("hook", "install")
    vybe.ok("hook", "uninstall")
    assert json.loads(path.read_text()) == {"model": "opus"}


def test_old_go_vybe_entries_with_millisecond_timeouts_are_replaced(vybe):
    path = _claude_settings(vybe)
    old = {"type": "command", "command": '"/opt/old/vybe" hook session-start', "timeout": 3000}
    _write(path, {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [old]}]}})
    result = vybe.ok("hook", "install")
    assert "SessionStart" in result["claude"]["updated"]
    handlers = json.loads(path.read_text())["hooks"]["SessionStart"]
    assert [h["command"] for g in handlers for h in g["hooks"]] == [f"{VYBE} hook run claude"]


def test_a_broken_settings_file_is_refused_and_left_alone(vybe):
    path = _claude_settings(vybe)
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": {', encoding="utf-8")
    result = vybe("hook", "install")
    assert result.error_code == "SETTINGS_UNREADABLE"
    assert path.read_text() == '{"hooks": {'


def test_dry_run_writes_nothing(vybe):
    result = vybe.ok("hook", "install", "--codex", "--dry-run")
    assert "Stop" in result["codex"]["installed"]
    assert not (vybe.home / ".codex").exists()


def test_project_install_writes_the_project_settings(vybe, tmp_path):
    project = tmp_path / "repo"
    project.mkdir()
    done = subprocess.run(
        [VYBE, "hook", "install", "--project", "--claude", "--codex"],
        cwd=project,
        env=vybe.env,
        capture_output=True,
        text=True,
    )
    assert json.loads(done.stdout)["success"]
    assert (project / ".claude" / "settings.json").is_file()
    assert (project / ".codex" / "hooks.json").is_file()
    assert not _claude_settings(vybe).exists()


def test_export_writes_an_editable_manifest_that_install_follows(vybe):
    exported = vybe.ok("hook", "export")
    manifest = Path(exported["path"])
    assert exported["created"] and manifest.is_file()
    document = json.loads(manifest.read_text())
    document["claude"] = [{"event": "SessionStart", "timeout": 7}]
    manifest.write_text(json.dumps(document))
    assert vybe.ok("hook", "install")["claude"]["installed"] == ["SessionStart"]
    assert vybe.ok("hook", "export")["created"] is False


def test_a_manifest_timeout_in_milliseconds_is_refused(vybe):
    manifest = Path(vybe.ok("hook", "export")["path"])
    manifest.write_text(json.dumps({"claude": [{"event": "SessionStart", "timeout": 3000}]}))
    assert vybe("hook", "install").error_code == "INVALID_INPUT"


def test_concurrent_installs_leave_one_entry_per_event(vybe):
    path = _claude_settings(vybe)
    _write(path, OTHERS)
    runs = [
        subprocess.Popen(
            [VYBE, "hook", "install", "--claude", "--codex"],
            env=vybe.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(12)
    ]
    outputs = [json.loads(p.communicate()[0]) for p in runs]
    assert all(o["success"] for o in outputs)
    document = json.loads(path.read_text())
    assert document["model"] == "opus"
    assert all(len(_ours(document, e)) == 1 for e in ("SessionStart", "Stop", "SessionEnd"))
    assert sum(o["data"]["claude"]["written"] for o in outputs) == 1


def test_doctor_reports_stale_paths_and_duplicates(vybe):
    vybe.ok("init")
    path = _claude_settings(vybe)
    gone = {"type": "command", "command": "/nowhere/vybe hook run claude", "timeout": 5}
    _write(path, {"hooks": {"Stop": [{"hooks": [gone]}, {"hooks": [dict(gone)]}]}})
    check = next(c for c in vybe.ok("doctor")["checks"] if c["name"] == "hooks_claude")
    assert check["ok"] is False
    files = check["detail"]["files"]
    assert files[0]["stale"] == ["/nowhere/vybe hook run claude"]
    assert files[0]["duplicates"] == ["Stop"]
    vybe.ok("hook", "install")
    check = next(c for c in vybe.ok("doctor")["checks"] if c["name"] == "hooks_claude")
    assert check["ok"] is True


def test_install_as_python_m_vybe_twice_keeps_one_entry_and_uninstall_removes_it(vybe):
    import sys

    path = _claude_settings(vybe)
    _write(path, OTHERS)
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "vybe", "hook", "install", "--claude"],
            env=vybe.env,
            capture_output=True,
            check=True,
        )
        assert json.loads(done.stdout)["success"], done.stdout
    assert len(_ours(json.loads(path.read_text()), "UserPromptSubmit")) == 1
    vybe.ok("hook", "install", "--claude")
    assert len(_ours(json.loads(path.read_text()), "UserPromptSubmit")) == 1
    vybe.ok("hook", "uninstall", "--claude")
    assert json.loads(path.read_text())["hooks"] == OTHERS["hooks"]


def test_a_symlinked_settings_file_is_updated_where_it_points(vybe, tmp_path):
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    _write(dotfiles, OTHERS)
    link = _claude_settings(vybe)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(dotfiles)
    vybe.ok("hook", "install", "--claude")
    assert link.is_symlink()
    assert len(_ours(json.loads(dotfiles.read_text()), "SessionStart")) == 1


def test_an_event_taken_out_of_the_manifest_loses_vybes_entry_on_install(vybe):
    path = _claude_settings(vybe)
    _write(path, OTHERS)
    vybe.ok("hook", "install", "--claude")
    manifest = Path(vybe.ok("hook", "export")["path"])
    document = json.loads(manifest.read_text())
    document["claude"] = [e for e in document["claude"] if e["event"] != "Stop"]
    manifest.write_text(json.dumps(document))
    assert "Stop" in vybe.ok("hook", "install", "--claude")["claude"]["removed"]
    settings = json.loads(path.read_text())
    assert "Stop" not in settings["hooks"] and len(_ours(settings, "SessionStart")) == 1


def test_an_event_that_is_not_a_list_is_refused_and_the_file_kept(vybe):
    path = _claude_settings(vybe)
    _write(path, {"hooks": {"UserPromptSubmit": {"weird": True}}})
    before = path.read_bytes()
    vybe.refused("SETTINGS_UNREADABLE", "hook", "install", "--claude")
    assert path.read_bytes() == before


def test_doctor_finds_a_bare_vybe_on_path_not_stale(vybe, monkeypatch):
    vybe.ok("init")
    path = _claude_settings(vybe)
    bare = {"type": "command", "command": "vybe hook run claude", "timeout": 5}
    _write(path, {"hooks": {"Stop": [{"hooks": [bare]}]}})
    monkeypatch.setitem(vybe.env, "PATH", f"{Path(VYBE).parent}:{vybe.env.get('PATH', '')}")
    check = next(c for c in vybe.ok("doctor")["checks"] if c["name"] == "hooks_claude")
    assert check["detail"]["files"][0]["stale"] == []


def test_install_offers_the_status_line_when_the_user_has_none(vybe):
    path = _claude_settings(vybe)
    _write(path, OTHERS)
    first = vybe.ok("hook", "install")
    assert first["claude"]["status_line"] == "installed"
    line = json.loads(path.read_text())["statusLine"]
    assert line == {"type": "command", "command": f"{VYBE} statusline", "padding": 0}
    assert vybe.ok("hook", "install")["claude"]["status_line"] == "unchanged"
    assert vybe.ok("hook", "install", "--codex")["codex"]["status_line"] is None
    removed = vybe.ok("hook", "uninstall")
    assert removed["claude"]["status_line"] == "removed"
    assert json.loads(path.read_text()) == OTHERS


def test_a_status_line_the_user_already_has_is_never_replaced(vybe):
    path = _claude_settings(vybe)
    theirs = {"type": "command", "command": "~/.claude/statusline.sh", "padding": 1}
    _write(path, {**OTHERS, "statusLine": theirs})
    assert vybe.ok("hook", "install")["claude"]["status_line"] == "kept_yours"
    assert json.loads(path.read_text())["statusLine"] == theirs
    assert vybe.ok("hook", "uninstall")["claude"]["status_line"] is None
    assert json.loads(path.read_text())["statusLine"] == theirs


def test_vybes_status_line_from_another_path_is_updated_in_place(vybe):
    path = _claude_settings(vybe)
    _write(path, {"statusLine": {"type": "command", "command": "/old/bin/vybe statusline"}})
    assert vybe.ok("hook", "install")["claude"]["status_line"] == "updated"
    assert json.loads(path.read_text())["statusLine"]["command"] == f"{VYBE} statusline"
