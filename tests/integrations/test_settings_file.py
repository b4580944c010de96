"""The settings lock: many processes updating one file lose nothing."""

from __future__ import annotations

import json
import subprocess
import sys

from vybe.integrations.setup import settings_file

WRITER = """
import sys
from pathlib import Path
from vybe.integrations.setup import settings_file

def add(document):
    document.setdefault("writers", []).append(sys.argv[2])
    return document

for round_ in range(5):
    settings_file.update(Path(sys.argv[1]), add)
"""


def test_concurrent_writers_in_separate_processes_lose_no_update(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"model": "opus"}))
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(n)]) for n in range(10)]
    assert all(p.wait() == 0 for p in procs)
    document = json.loads(path.read_text())
    assert document["model"] == "opus"
    assert sorted(document["writers"]) == sorted(str(n) for n in range(10) for _ in range(5))


def test_the_rewrite_keeps_the_file_mode(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0o640)
    settings_file.update(path, lambda d: {**d, "k": 1})
    assert path.stat().st_mode & 0o777 == 0o640
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_an_update_leaves_no_lock_file_beside_the_settings(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    settings_file.update(path, lambda document: {**document, "model": "opus"})
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
