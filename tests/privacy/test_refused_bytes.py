"""Bad input to privacy's settings and to `vybe forget` changes no byte of the store: the
SQLite database and its WAL (when one is left) are as they were; a server store's rows, by
its dump."""

from __future__ import annotations

import pytest

from tests.integrations.test_forget import PLANTED, _file_bytes


def configure(vybe, text: str) -> None:
    path = vybe.config_dir / "config.yaml"
    path.write_text(path.read_text() + text)


@pytest.mark.parametrize(
    ("code", "args", "privacy"),
    [
        ("CONFIG_INVALID", ("memory", "set", "-k", "k", "-v", "v"), "  patterns: ['a[b']\n"),
        ("CONFIG_INVALID", ("forget", "--text", PLANTED), "  allow: ['(?P<x']\n"),
        ("INVALID_INPUT", ("forget", "--before", "2026-02-30"), ""),
        ("INVALID_INPUT", ("forget", "--before", "last week"), ""),
        ("INVALID_INPUT", ("forget", "--text", "sk-1234"), ""),
    ],
)
def test_bad_input_changes_no_byte_of_the_store(vybe, code, args, privacy):
    vybe.ok("memory", "set", "-k", "deploy", "-v", f"with {PLANTED}")
    vybe.ok("note", vybe.task("t"), f"a note with {PLANTED}")
    if privacy:
        configure(vybe, f"privacy:\n{privacy}")
    before = _file_bytes(vybe)
    vybe.refused(code, *args)
    assert _file_bytes(vybe) == before
