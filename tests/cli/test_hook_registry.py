"""The hook registry where the seed puts it: the config folder's hooks.json, written by
`vybe init` and `vybe setup`, edited by the person, honoured, and checked by `vybe doctor`."""

from __future__ import annotations

import json
from pathlib import Path

from vybe.integrations.setup import manifest


def _registry(vybe) -> Path:
    return Path(vybe.ok("hook", "export")["path"])


def _check(vybe, name: str) -> dict:
    return next(c for c in vybe.ok("doctor")["checks"] if c["name"] == name)


def test_init_writes_the_default_registry_as_hooks_json_in_the_config_folder(vybe):
    done = vybe.ok("init")
    path = Path(done["hook_registry"])
    assert done["hook_registry_written"] and path.name == "hooks.json"
    assert json.loads(path.read_text()) == manifest.to_json(manifest.DEFAULT)
    assert path.stat().st_mode & 0o077 == 0


def test_init_again_keeps_the_registry_the_person_edited(vybe):
    path = Path(vybe.ok("init")["hook_registry"])
    path.write_text(json.dumps({"claude": [{"event": "Stop", "timeout": 3}]}))
    assert vybe.ok("init")["hook_registry_written"] is False
    assert json.loads(path.read_text()) == {"claude": [{"event": "Stop", "timeout": 3}]}


def test_setup_follows_an_edited_registry(vybe):
    path = Path(vybe.ok("init")["hook_registry"])
    path.write_text(json.dumps({"claude": [{"event": "Stop", "timeout": 3}]}))
    vybe.ok("setup", "--claude")
    settings = json.loads((vybe.home / ".claude" / "settings.json").read_text())
    assert sorted(settings["hooks"]) == ["Stop"]


def test_setup_writes_the_registry_when_there_is_none(vybe):
    done = vybe.ok("setup", "--claude")
    assert done["hook_registry"]["written"] is True
    assert Path(done["hook_registry"]["path"]).is_file()


def test_doctor_finds_a_malformed_registry_and_compares_no_hooks_with_defaults(vybe):
    vybe.ok("hook", "install", "--claude")
    _registry(vybe).write_text("{not json")
    check = _check(vybe, "hook_registry")
    assert check["ok"] is False
    assert "cannot read the hook registry" in check["detail"]["problems"][0]
    assert _check(vybe, "hooks_claude")["detail"]["missing"] == []


def test_doctor_finds_settings_that_differ_from_an_edited_registry(vybe):
    vybe.ok("hook", "install", "--claude")
    path = _registry(vybe)
    document = json.loads(path.read_text())
    document["claude"] = [e for e in document["claude"] if e["event"] != "TaskCompleted"]
    path.write_text(json.dumps(document))
    check = _check(vybe, "hooks_claude")
    assert check["ok"] is False
    [user_file] = [f for f in check["detail"]["files"] if f["events"]]
    assert user_file["differs"] == ["TaskCompleted"]
    vybe.ok("hook", "install", "--claude")
    assert _check(vybe, "hooks_claude")["ok"] is True


def test_doctor_names_a_registry_left_under_its_old_name(vybe):
    old = Path(vybe.ok("init")["config_dir"]) / "hook-manifest.json"
    old.write_text(json.dumps({"claude": []}))
    check = _check(vybe, "hook_registry")
    assert check["ok"] is False and "no longer read" in check["detail"]["problems"][0]


def test_doctor_says_an_absent_registry_means_the_defaults(vybe):
    check = _check(vybe, "hook_registry")
    assert check["ok"] is True and check["detail"]["exists"] is False
    assert "defaults apply" in check["detail"]["note"]
