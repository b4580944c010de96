"""The contributors' check of commit subjects (.githooks/commit-msg, make check-commits):
at most 72 characters, counted as characters, not bytes."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[2]
HOOK = ROOT / ".githooks" / "commit-msg"


def _check(tmp_path: Path, message: str) -> subprocess.CompletedProcess:
    written = tmp_path / "COMMIT_EDITMSG"
    written.write_text(message, encoding="utf-8")
    return subprocess.run([str(HOOK), str(written)], capture_output=True, text=True, check=False)


def test_a_subject_of_72_characters_passes_whatever_its_body(tmp_path):
    done = _check(tmp_path, "é" * 72 + "\n\n" + "a body line far longer than the subject " * 5)
    assert done.returncode == 0, done.stderr


def test_a_subject_of_73_characters_is_refused_with_the_reason(tmp_path):
    done = _check(tmp_path, "x" * 73 + "\n")
    assert done.returncode == 1
    assert "73 characters, over 72" in done.stderr


def test_make_check_commits_checks_each_subject_of_the_range():
    done = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "-n", "check-commits", "RANGE=HEAD~3..HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "git log --format=%s HEAD~3..HEAD" in done.stdout
    assert ".githooks/commit-msg" in done.stdout
