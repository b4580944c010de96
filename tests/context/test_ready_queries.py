"""The ready commands a recollection shows run in a shell as shown, whatever the session id
(the recorder refuses such an id today; a store written before may hold one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from vybe.context import assemble
from vybe.context.record import MessageRow
from vybe.store import SqliteStore
from vybe.store.record import SqliteRecord

AWKWARD = """it's a "quoted" id; $(echo no)"""


def _shell(tmp_path, command: str) -> dict:
    env = {
        **os.environ,
        "VYBE_DB_PATH": str(tmp_path / "vybe.db"),
        "VYBE_CONFIG_DIR": str(tmp_path / "config"),
    }
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=env, check=False
    )
    return json.loads(done.stdout)["data"]


def test_the_user_words_search_runs_in_a_shell_and_finds_only_the_persons_words(tmp_path):
    store = SqliteStore(tmp_path / "vybe.db")
    record = SqliteRecord(store)
    record.append(MessageRow(AWKWARD, 0, "user", "keep the old DSN"))
    record.append(MessageRow(AWKWARD, 0, "assistant", "the old DSN stays"))
    record.append(MessageRow("other", 0, "user", "the old DSN? not this one"))
    store.close()
    vybe = str(Path(sys.executable).with_name("vybe")) + " --agent codex"
    command = assemble.search_command(AWKWARD, vybe, "user").replace("<words>", "DSN")
    hits = _shell(tmp_path, command)["hits"]
    assert [(h["session_id"], h["type"]) for h in hits] == [(AWKWARD, "user")]


def test_the_whole_mind_command_shows_the_checkpoint_in_a_shell(tmp_path):
    store = SqliteStore(tmp_path / "vybe.db")
    record = SqliteRecord(store)
    record.append(MessageRow(AWKWARD, 0, "user", "keep the old DSN"))
    store.close()
    vybe = str(Path(sys.executable).with_name("vybe")) + " --agent codex"
    shown = _shell(tmp_path, assemble.show_command(AWKWARD, vybe))
    assert shown["session_id"] == AWKWARD and shown["stats"]["messages"] == 1


def test_the_search_command_runs_in_a_shell_as_the_owner_named_it(tmp_path):
    store = SqliteStore(tmp_path / "vybe.db")
    record = SqliteRecord(store)
    record.append(MessageRow(AWKWARD, 0, "user", "keep the old DSN for billing"))
    record.append(MessageRow("other", 0, "user", "billing elsewhere"))
    store.close()
    vybe = str(Path(sys.executable).with_name("vybe")) + " --agent codex"
    command = assemble.search_command(AWKWARD, vybe).replace("<words>", "billing")
    assert command.startswith(vybe + " search ")
    hits = _shell(tmp_path, command)["hits"]
    assert [h["session_id"] for h in hits] == [AWKWARD]
