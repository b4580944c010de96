"""The file tools: edits keep a file's own line endings."""

from __future__ import annotations

import os
import stat

import pytest

from vybe.agent import files
from vybe.errors import InvalidInput


def test_edit_keeps_crlf_line_endings(tmp_path):
    target = tmp_path / "dos.txt"
    target.write_bytes(b"line1\r\nline2\r\nline3\r\n")
    files.edit(tmp_path, "dos.txt", "line2\nline3", "LINE2\nline3")
    assert target.read_bytes() == b"line1\r\nLINE2\r\nline3\r\n"


def test_edit_keeps_lf_line_endings(tmp_path):
    target = tmp_path / "unix.txt"
    target.write_bytes(b"a\nb\n")
    files.edit(tmp_path, "unix.txt", "b", "B")
    assert target.read_bytes() == b"a\nB\n"


def test_write_and_edit_stay_inside_the_working_folder(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "bashrc"
    outside.write_text("x = 1\n")
    for attempt in (
        lambda: files.write(work, "../bashrc", "evil"),
        lambda: files.write(work, str(outside), "evil"),
        lambda: files.edit(work, "../bashrc", "x = 1", "evil"),
    ):
        with pytest.raises(InvalidInput, match="outside the working folder"):
            attempt()
    assert outside.read_text() == "x = 1\n"
    files.write(work, "sub/ok.txt", "fine")
    assert (work / "sub" / "ok.txt").read_text() == "fine"


def test_a_binary_file_is_named_not_shown(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    assert files.read(tmp_path, "blob.bin") == "(binary file, 70 bytes: not shown)"


@pytest.fixture
def work(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def test_write_and_edit_refuse_a_hard_link_to_a_file_outside(work, tmp_path):
    outside = tmp_path / "secret"
    outside.write_text("x = 1\n")
    os.link(outside, work / "link")
    for attempt in (
        lambda: files.write(work, "link", "evil"),
        lambda: files.edit(work, "link", "x = 1", "evil"),
    ):
        with pytest.raises(InvalidInput, match="2 hard links: writing it would replace"):
            attempt()
    assert outside.read_text() == "x = 1\n"
    assert (work / "link").stat().st_ino == outside.stat().st_ino


def test_read_takes_a_hard_linked_file_in_a_folder_only_the_user_may_write(work, tmp_path):
    """pnpm's node_modules: every file a hard link to the package store outside."""
    store = tmp_path / "store"
    store.mkdir()
    (store / "index.js").write_text("module.exports = 1;\n")
    package = work / "node_modules" / "left-pad"
    package.mkdir(parents=True, mode=0o755)
    os.link(store / "index.js", package / "index.js")
    assert files.read(work, "node_modules/left-pad/index.js") == "module.exports = 1;\n"


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o1777])
def test_read_refuses_a_hard_link_in_a_folder_others_may_write(work, tmp_path, mode):
    outside = tmp_path / "secret"
    outside.write_text("key\n")
    shared = work / "shared"
    shared.mkdir()
    os.link(outside, shared / "notes.txt")
    shared.chmod(mode)
    with pytest.raises(InvalidInput, match="2 hard links and its folder is not yours alone"):
        files.read(work, "shared/notes.txt")
    (shared / "plain.txt").write_text("fine\n")
    assert files.read(work, "shared/plain.txt") == "fine\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another account needs root")
def test_read_refuses_a_hard_link_in_a_folder_another_account_owns(work, tmp_path):
    outside = tmp_path / "secret"
    outside.write_text("key\n")
    theirs = work / "theirs"
    theirs.mkdir(mode=0o755)
    os.link(outside, theirs / "notes.txt")
    os.chown(theirs, 65534, 65534)
    with pytest.raises(InvalidInput, match="not yours alone"):
        files.read(work, "theirs/notes.txt")


def test_write_and_edit_never_follow_a_symlink_even_one_inside(work, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "rc").write_text("x = 1\n")
    (work / "sub").symlink_to(outside)
    (work / "rc").symlink_to(outside / "rc")
    for attempt in (
        lambda: files.write(work, "sub/rc", "evil"),
        lambda: files.edit(work, "sub/rc", "x = 1", "evil"),
        lambda: files.write(work, "rc", "evil"),
        lambda: files.edit(work, "rc", "x = 1", "evil"),
    ):
        with pytest.raises(InvalidInput, match="symbolic link"):
            attempt()
    assert (outside / "rc").read_text() == "x = 1\n"


def test_a_folder_swapped_for_a_symlink_after_the_path_was_checked_is_not_followed(
    work, tmp_path, monkeypatch
):
    """The race the check-then-open had: the path is checked, then a folder is swapped."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (work / "sub").mkdir()
    real_open = os.open

    def swapping_open(path, flags, *args, **kwargs):
        if path == "sub" and not (work / "sub").is_symlink():
            os.rmdir(work / "sub")
            (work / "sub").symlink_to(outside)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", swapping_open)
    with pytest.raises(InvalidInput, match="symbolic link"):
        files.write(work, "sub/new.txt", "evil")
    assert list(outside.iterdir()) == []


def test_write_replaces_the_file_through_a_temporary_file_renamed_in_place(work):
    target = work / "a.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    before = os.stat(target).st_ino
    files.write(work, "a.txt", "new")
    assert target.read_text() == "new"
    assert os.stat(target).st_ino != before
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert sorted(p.name for p in work.iterdir()) == ["a.txt"]


def test_read_stays_inside_the_working_folder_unless_the_person_allows_more(work, tmp_path):
    outside = tmp_path / "shadow"
    outside.write_text("root:secret\n")
    for path in (str(outside), "../shadow"):
        with pytest.raises(InvalidInput, match="outside the working folder"):
            files.read(work, path)
    assert "root:secret" in files.read(work, str(outside), anywhere=True)
    (work / "in.txt").write_text("hello\n")
    assert files.read(work, "in.txt") == "hello\n"
