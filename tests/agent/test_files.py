"""The file tools: edits keep a file's own line endings."""

from __future__ import annotations

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
