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
from vybe.store import Store
from vybe.store.record import SqliteRecord

AWKWARD = """it's a "quoted" id; $(echo no)"""


def test_the_record_query_runs_in_a_shell_and_finds_the_sessions_words(tmp_path):
    store = Store(tmp_path / "vybe.db")
    record = SqliteRecord(store)
    record.append(MessageRow(AWKWARD, 0, "user", "keep the old DSN"))
    record.append(MessageRow("other", 0, "user", "not this one"))
    store.close()
    env = {
        **os.environ,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
        "VYBE_DB_PATH": str(tmp_path / "vybe.db"),
        "VYBE_CONFIG_DIR": str(tmp_path / "config"),
    }
    command = assemble.record_query(AWKWARD, 10)
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=env, check=False
    )
    rows = json.loads(done.stdout)["data"]["rows"]
    assert [r["substr(content_text,1,300)"] for r in rows] == ["keep the old DSN"]


def test_the_search_command_runs_in_a_shell_as_the_owner_named_it(tmp_path):
    store = Store(tmp_path / "vybe.db")
    record = SqliteRecord(store)
    record.append(MessageRow(AWKWARD, 0, "user", "keep the old DSN for billing"))
    record.append(MessageRow("other", 0, "user", "billing elsewhere"))
    store.close()
    env = {
        **os.environ,
        "VYBE_DB_PATH": str(tmp_path / "vybe.db"),
        "VYBE_CONFIG_DIR": str(tmp_path / "config"),
    }
    vybe = str(Path(sys.executable).with_name("vybe")) + " --agent codex"
    command = assemble.search_command(AWKWARD, vybe).replace("<words>", "billing")
    assert command.startswith(vybe + " search ")
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, env=env, check=False
    )
    hits = json.loads(done.stdout)["data"]["hits"]
    assert [h["session_id"] for h in hits] == [AWKWARD]
