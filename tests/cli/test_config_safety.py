"""Who can redirect and who can read: no file in the working folder chooses the store, and
what vybe writes is the user's alone (folder 700, files 600) whatever the umask."""

from __future__ import annotations

import os
import stat

import pytest

from vybe import config


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_config_yaml_in_the_working_folder_never_chooses_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv("VYBE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("VYBE_DB_PATH", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    (project / "config.yaml").write_text("db_path: app.db\ndefault_agent: mallory\n")
    monkeypatch.chdir(project)
    settings = config.load()
    assert settings.db_path == str(tmp_path / "config" / "vybe.db")
    assert (settings.agent, settings.config_file) == (None, None)
    assert "config.yaml" not in config.config_files()


def test_doctor_names_the_config_files_it_read(vybe):
    folder = vybe.home / "config"
    (folder / "config.yaml").write_text("default_agent: carol\n")
    vybe.ok("init")
    found = vybe.ok("doctor")["config"]
    assert found["read"] == [str(folder / "config.yaml")]
    assert str(folder / "config.yaml") in found["searched"]


def test_init_and_a_write_leave_the_folder_700_and_every_file_600(vybe, umask_022):
    vybe.ok("init", "--db-path", str(vybe.home / "config" / "vybe.db"))
    vybe.ok(
        "task", "create", "--title", "secret", "--db-path", str(vybe.home / "config" / "vybe.db")
    )
    folder = vybe.home / "config"
    assert _mode(folder) == 0o700
    written = [p for p in folder.iterdir()]
    assert {p.name for p in written} >= {"vybe.db"}
    for path in written:
        assert _mode(path) == 0o600, path


def test_a_store_made_elsewhere_is_600_with_its_wal_and_shm(vybe, umask_022):
    db = vybe.home / "elsewhere" / "v.db"
    vybe.ok("task", "create", "--title", "t", "--db-path", str(db))
    assert _mode(db.parent) == 0o700
    assert _mode(db) == 0o600


def test_the_wal_and_shm_of_an_open_store_are_600(tmp_path, umask_022):
    """SQLite removes them when the last connection closes: look while the store is open."""
    from vybe.actions import tasks
    from vybe.store import SqliteStore

    db = tmp_path / "open" / "v.db"
    store = SqliteStore(db)
    try:
        tasks.create(store, "a", "r1", title="t")
        for suffix in ("", "-wal", "-shm"):
            path = db.with_name(db.name + suffix)
            assert path.exists() and _mode(path) == 0o600, path
    finally:
        store.close()


def test_the_hook_log_is_600(vybe, umask_022, monkeypatch):
    from vybe.integrations.hooks import hook as hooks

    monkeypatch.setenv("VYBE_CONFIG_DIR", str(vybe.home / "config"))
    hooks.log_failure("claude", "Stop", RuntimeError("boom"))
    assert _mode(vybe.home / "config") == 0o700
    assert _mode(vybe.home / "config" / hooks.LOG_NAME) == 0o600


def test_doctor_warns_about_a_store_or_folder_others_can_read(vybe):
    vybe.ok("init", "--db-path", str(vybe.home / "config" / "vybe.db"))
    os.chmod(vybe.home / "config", 0o755)
    os.chmod(vybe.home / "config" / "vybe.db", 0o644)
    report = vybe.ok("doctor", "--db-path", str(vybe.home / "config" / "vybe.db"))
    privacy = {c["name"]: c for c in report["checks"]}["privacy"]
    assert privacy["ok"] is False
    assert str(vybe.home / "config") in privacy["detail"]
    assert str(vybe.home / "config" / "vybe.db") in privacy["detail"]


def test_init_where_the_config_folder_cannot_be_made_is_a_stable_error(vybe, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    vybe.env["VYBE_CONFIG_DIR"] = str(blocker / "config")
    result = vybe("init")
    assert (result.code, result.error_code) == (1, "CONFIG_UNAVAILABLE"), result.envelope
