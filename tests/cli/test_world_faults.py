"""Faults of the world around vybe (its environment, its streams, its files): each is one
JSON error with a stable code, never INTERNAL, and a write's exit code says if it happened."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.conftest import VYBE


def _config(vybe, text: bytes) -> None:
    folder = vybe.home / "config"
    folder.mkdir(mode=0o700, exist_ok=True)
    (folder / "config.yaml").write_bytes(text)


@pytest.mark.parametrize(
    "text,code",
    [
        (b"default_agent: \xff\xfe\n", "CONFIG_UNREADABLE"),
        (b"claim_lease: soon\n", "CONFIG_INVALID"),
        (b"claim_lease: 0s\n", "CONFIG_INVALID"),
    ],
    ids=["not-utf8", "bad-lease", "zero-lease"],
)
def test_a_bad_config_file_is_a_stable_error(vybe, text, code):
    vybe.ok("init")
    _config(vybe, text)
    vybe.refused(code, "task", "claim", "--next")


def test_models_that_are_not_a_mapping_are_config_invalid(vybe):
    vybe.ok("init")
    _config(vybe, b"models: 5\n")
    vybe.refused("CONFIG_INVALID", "session", "context", "s", "--model", "gpt-4o")


@pytest.mark.parametrize(
    "name,value",
    [
        ("VYBE_CLAIM_LEASE", "soon"),
        ("VYBE_AGENT", "\udcff"),
        ("VYBE_REQUEST_ID", "req-\udcff"),
        ("VYBE_CLOCK_OFFSET", "later"),
    ],
    ids=["lease", "agent", "request-id", "clock-offset"],
)
def test_a_bad_environment_value_is_invalid_input(vybe, name, value):
    vybe.ok("init")
    vybe.env.update({name: value, "VYBE_TEST_CLOCK": "1"})
    vybe.refused("INVALID_INPUT", "task", "claim", "--next")


@pytest.mark.parametrize("path", ["/dev/null", "/dev/full", "{fifo}"])
@pytest.mark.parametrize("argv", [["task", "create", "--title", "t"], ["task", "list"]])
def test_a_store_path_that_is_not_a_regular_file_is_db_unavailable(vybe, tmp_path, path, argv):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    vybe.refused("DB_UNAVAILABLE", *argv, "--db-path", path.format(fifo=fifo))


def _run(vybe, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [VYBE, *args], env=vybe.env, capture_output=True, check=False, timeout=20, **kwargs
    )


def test_push_from_a_closed_stdin_is_invalid_input(vybe):
    vybe.ok("init")
    done = _run(vybe, "push", "--json", "-", preexec_fn=lambda: os.close(0))
    envelope = json.loads(done.stdout)
    assert (done.returncode, envelope["error_code"]) == (1, "INVALID_INPUT")
    assert b"Traceback" not in done.stderr


def test_utf8_arguments_are_accepted_under_the_c_locale_without_utf8_mode(vybe):
    """Only a process shows it: the interpreter decodes argv and the environment at start."""
    vybe.env.update({"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"})
    vybe.env["VYBE_AGENT"] = "zoë"
    created = vybe.process("task", "create", "--title", "héllo wörld")
    assert created.data["task"]["title"] == "héllo wörld"
    assert vybe.process("resume", "--peek").data["agent_name"] == "zoë"


def test_bytes_that_are_not_utf8_are_still_refused_under_the_c_locale(vybe):
    vybe.ok("init")
    env = {**vybe.env, "LC_ALL": "C", "PYTHONUTF8": "0"}
    done = subprocess.run(
        [VYBE.encode(), b"task", b"create", b"--title", b"\xff\xfe"], env=env,
        capture_output=True, check=False,
    )  # fmt: skip
    assert json.loads(done.stdout)["error_code"] == "INVALID_INPUT"


@pytest.fixture
def read_only_store(vybe, tmp_path):
    """A store on a read-only mount (only root may mount)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a read-only tmpfs needs root; run the suite as root to test")
    mount = tmp_path / "ro"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    vybe.db_path = mount / "vybe.db"
    vybe.env["VYBE_DB_PATH"] = str(vybe.db_path)
    vybe.ok("memory", "set", "-k", "k", "-v", "kept")
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    yield vybe
    subprocess.run(["umount", "-l", str(mount)], check=True)


@pytest.mark.sqlite_only("a SQLite file on a read-only mount")
def test_memory_get_on_a_read_only_store_reads_the_entry(read_only_store):
    entry = read_only_store.ok("memory", "get", "-k", "k")["memory"]
    assert entry["value"] == "kept"
    assert read_only_store.ok("memory", "list")["count"] == 1
    result = read_only_store("memory", "set", "-k", "k2", "-v", "x")
    assert result.error_code == "DB_UNAVAILABLE"


@pytest.fixture
def read_only_view(vybe, tmp_path):
    """The store's folder bind-mounted read-only beside the writable one, as Codex's sandbox
    shows it to the agent's commands while the hooks outside keep writing (needs root)."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root; run the suite as root to test")
    writable, view = tmp_path / "rw", tmp_path / "view"
    writable.mkdir()
    view.mkdir()
    subprocess.run(["mount", "--bind", str(writable), str(view)], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], check=True)
    yield writable / "vybe.db", view / "vybe.db"
    subprocess.run(["umount", "-l", str(view)], check=True)


@pytest.mark.sqlite_only("a SQLite file seen through a read-only bind mount")
def test_a_read_only_view_of_a_store_being_written_reads_what_its_wal_holds(vybe, read_only_view):
    import sqlite3

    writable, view = read_only_view
    vybe.env["VYBE_DB_PATH"] = str(writable)
    vybe.ok("session", "say", "s1", "checkpointed words")
    writer = sqlite3.connect(writable)  # open: the WAL is not copied back and removed
    try:
        writer.execute("SELECT 1 FROM sessions").fetchall()
        vybe.ok("session", "say", "s1", "words still in the wal")
        assert os.path.getsize(f"{writable}-wal") > 0
        vybe.env["VYBE_DB_PATH"] = str(view)
        hits = vybe.ok("search", "wal", "--session-id", "s1")["hits"]
        assert [h["snippet"] for h in hits] == ["words still in the **wal**"]
        assert vybe("session", "say", "s1", "more").error_code == "DB_UNAVAILABLE"
    finally:
        writer.close()


def test_an_interrupted_command_exits_130_with_an_interrupted_envelope(vybe):
    """130 is documented (docs/cli.md): the shell's 128 + SIGINT."""
    import signal
    import time

    vybe.ok("init")
    vybe.env["VYBE_AGENT"] = "a"
    reader = subprocess.Popen(
        [VYBE, "push", "--json", "-"], env=vybe.env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    time.sleep(1.0)  # started, and waiting on its stdin
    reader.send_signal(signal.SIGINT)
    out, err = reader.communicate(timeout=20)
    assert reader.returncode == 130, err
    assert json.loads(out)["error_code"] == "INTERRUPTED"
    assert b"Traceback" not in err


@pytest.mark.sqlite_only("a store path on this machine's file system")
def test_a_non_ascii_store_path_works_under_the_c_locale_without_utf8_mode(vybe, tmp_path):
    db = tmp_path / "dé jà" / "vybe.db"
    vybe.env.update(
        LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0", VYBE_DB_PATH=str(db)
    )
    assert vybe.process("init").code == 0
    assert vybe.process("task", "create", "--title", "t").code == 0
    assert vybe.process("task", "list").data["count"] == 1
    assert vybe.process("status").data["db"]["exists"] is True
    assert vybe.process("doctor").code == 0
    prompt = {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "hi there"}
    for line in (["hook", "run", "claude"], ["statusline"]):
        done = subprocess.run(
            [VYBE, *line], input=json.dumps(prompt).encode(), env=vybe.env,
            capture_output=True, check=False,
        )  # fmt: skip
        assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode().startswith("vybe · ")
    kinds = [e["kind"] for e in vybe.process("events", "--all").data["events"]]
    assert "user_prompt" in kinds
    assert not (vybe.home / "config" / "hooks.log").exists()
