"""config.yaml is YAML: parsed as YAML, each setting checked, a wrong one named.

A setting of the wrong type or value is CONFIG_INVALID naming its key (never read as some
other value, nor left for a default), and the store is left as it was. The parse is cached
beside the config, keyed by the file's identity, size and times."""

from __future__ import annotations

import json

import pytest

from vybe import config


def _write(vybe, text: str) -> None:
    (vybe.config_dir / "config.yaml").write_text(text)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("default_agent: [a, b]\n", "default_agent"),
        ("default_agent: {name: a}\n", "default_agent"),
        ("default_agent: 7\n", "default_agent"),
        ("default_agent: ' padded'\n", "default_agent"),
        ("busy_timeout_ms: abc\n", "busy_timeout_ms"),
        ("busy_timeout_ms: -1\n", "busy_timeout_ms"),
        ("busy_timeout_ms: 600001\n", "busy_timeout_ms"),
        ("busy_timeout_ms: true\n", "busy_timeout_ms"),
        ("busy_timeout_ms: 2.5\n", "busy_timeout_ms"),
        ("claim_lease: 900\n", "claim_lease"),
        ("claim_lease: 25h\n", "claim_lease"),
        ("db_path: [a]\n", "db_path"),
        ("db_url: 5\n", "db_url"),
        ("models: 5\n", "models"),
    ],
)
def test_a_setting_of_the_wrong_type_or_value_is_config_invalid_naming_it(vybe, text, key):
    vybe.initialized()
    _write(vybe, "default_agent: a\n" + text if key != "default_agent" else text)
    result = vybe.refused("CONFIG_INVALID", "task", "create", "--title", "t")
    assert result.envelope["error_context"]["field"] == key
    assert key in result.envelope["error"]


@pytest.mark.parametrize(
    "text", ["default_agent: [a\n", "- default_agent: a\n", "default_agent: a\n\tx: 1\n"]
)
def test_a_file_that_is_not_a_yaml_mapping_is_config_invalid(vybe, text):
    vybe.initialized()
    _write(vybe, text)
    vybe.refused("CONFIG_INVALID", "task", "list")


def test_yaml_quoting_and_comments_are_read_as_yaml(vybe):
    _write(vybe, "default_agent: \"a: b #c\"   # the reviewer\nclaim_lease: '30m'\n")
    made = vybe.ok("task", "create", "--title", "t")
    event = vybe.ok("events", "--task-id", made["task"]["id"])["events"][0]
    assert event["agent_name"] == "a: b #c"


def test_init_writes_a_name_yaml_reads_back_exactly(vybe):
    for name in ("a: b #c", 'it\'s "quoted"', "- leading dash", "null", "日本"):
        vybe.ok("init", "--agent", name)
        assert vybe.ok("status")["agent"] == name


def test_an_empty_file_and_null_settings_are_settings_left_out(vybe, monkeypatch):
    monkeypatch.setenv("VYBE_CONFIG_DIR", str(vybe.config_dir))
    _write(vybe, "")
    assert config.load("x").busy_timeout_ms == 5000
    _write(vybe, "busy_timeout_ms:\nclaim_lease: ~\n")
    settings = config.load("x")
    assert (settings.busy_timeout_ms, settings.claim_lease) == (5000, "15m")


def test_the_settings_are_read_and_the_environment_wins(vybe, monkeypatch):
    monkeypatch.setenv("VYBE_CONFIG_DIR", str(vybe.config_dir))
    monkeypatch.delenv("VYBE_BUSY_TIMEOUT_MS", raising=False)
    _write(vybe, "busy_timeout_ms: 250\nclaim_lease: 1h\n")
    settings = config.load("x")
    assert (settings.busy_timeout_ms, settings.claim_lease) == (250, "1h")
    monkeypatch.setenv("VYBE_BUSY_TIMEOUT_MS", "900")
    assert config.load("x").busy_timeout_ms == 900


@pytest.mark.parametrize("value", ["abc", "-5", "700000", "1e3"])
def test_a_bad_busy_timeout_in_the_environment_is_invalid_input_naming_it(vybe, value):
    vybe.initialized()
    vybe.env["VYBE_BUSY_TIMEOUT_MS"] = value
    result = vybe.refused("INVALID_INPUT", "task", "list")
    assert result.envelope["error_context"]["field"] == "VYBE_BUSY_TIMEOUT_MS"


def test_an_edit_is_seen_at_once_through_the_cache(vybe, monkeypatch):
    monkeypatch.setenv("VYBE_CONFIG_DIR", str(vybe.config_dir))
    _write(vybe, "default_agent: first\n")
    assert config.load().agent == "first"
    cache = vybe.config_dir / config.CONFIG_CACHE
    assert json.loads(cache.read_text())["settings"] == {"default_agent": "first"}
    assert oct(cache.stat().st_mode & 0o777) == "0o600"
    _write(vybe, "default_agent: secnd\n")  # the same size, written in the same instant
    assert config.load().agent == "secnd"


def test_a_damaged_cache_is_parsed_again(vybe, monkeypatch):
    monkeypatch.setenv("VYBE_CONFIG_DIR", str(vybe.config_dir))
    _write(vybe, "default_agent: kept\n")
    for damage in ("{", "[]", '{"path": 1}', ""):
        (vybe.config_dir / config.CONFIG_CACHE).write_text(damage)
        assert config.load().agent == "kept"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://alice:hunter2@db.internal:5432/vybe",
        "postgresql://alice@db.internal/vybe?password=hunter2&sslmode=verify-full",
        "host=db.internal user=alice password=hunter2 dbname=vybe",
    ],
)
def test_a_database_url_holding_a_password_is_refused_and_not_repeated(vybe, url):
    vybe.initialized()
    _write(vybe, f"db_url: '{url}'\n")
    result = vybe.refused("CONFIG_INVALID", "task", "list")
    assert result.envelope["error_context"]["field"] == "db_url"
    assert "PGPASSFILE" in result.envelope["suggested_action"]
    assert "hunter2" not in json.dumps(result.envelope) + result.stderr


def test_a_database_url_without_a_password_is_read_as_it_is():
    url = "postgresql://alice@db.internal:5432/vybe?sslmode=verify-full&sslrootcert=/ca.pem"
    assert config.checked("config.yaml", {"db_url": url})["db_url"] == url
