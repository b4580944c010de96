"""Beyond the store's tables: the files vybe writes itself (prompts kept on disk while the
store is locked, hooks.log) hold none of the planted secrets nor a private span, and after
the planted-secrets run no file under HOME (the config folder, the store's folder) holds
one either."""

from __future__ import annotations

import json

import pytest

from tests.integrations.conftest import Agent
from tests.privacy.planted import needles, planted
from tests.privacy.test_planted_secrets import PRIVATE, words
from vybe.cli import hook_run
from vybe.integrations.hooks import hook as hooks
from vybe.store import SqliteStore


def assert_no_planted(found: bytes, what: str) -> None:
    for shape, secret, _ in planted():
        for needle in needles(secret):
            assert needle.encode() not in found, (shape, what)
    assert PRIVATE.encode() not in found, what


@pytest.fixture
def inprocess(vybe, tmp_path, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    for key, value in vybe.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(project)
    return Agent(vybe, project)


@pytest.mark.sqlite_only("SQLite's write lock (BEGIN IMMEDIATE) and the file's -pending folder")
def test_a_prompt_kept_on_disk_while_the_store_is_locked_holds_no_planted_secret(
    inprocess, monkeypatch
):
    text = words(planted()[::5])
    prompt = inprocess.event("claude", "user_prompt_submit", prompt=text)
    locker = SqliteStore(str(inprocess.vybe.db_path))
    locker.conn.execute("BEGIN IMMEDIATE")
    monkeypatch.setattr(hooks, "HOOK_BUSY_TIMEOUT_MS", 20)
    try:
        assert hook_run.run("claude", json.dumps(prompt).encode()) == ""
    finally:
        locker.conn.execute("ROLLBACK")
        locker.close()
    pending = inprocess.vybe.home / f"{inprocess.vybe.db_path.name}-pending"
    (kept,) = pending.iterdir()
    found = kept.read_bytes()
    assert b"please look at these" in found and b"[REDACTED:" in found
    assert_no_planted(found, kept.name)


def test_the_hook_failure_log_holds_no_planted_secret(vybe, monkeypatch):
    monkeypatch.setenv("VYBE_CONFIG_DIR", str(vybe.config_dir))
    try:
        raise ValueError(f"could not read {words(planted()[1::5])}")
    except ValueError as error:
        hooks.log_failure("claude", "user_prompt_submit", error)
    found = (vybe.config_dir / hooks.LOG_NAME).read_bytes()
    assert b"could not read" in found and b"[REDACTED:" in found
    assert_no_planted(found, hooks.LOG_NAME)
