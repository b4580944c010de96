"""The file tools: edits keep a file's own line endings."""

from __future__ import annotations

from vybe.agent import files


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
