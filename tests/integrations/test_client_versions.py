"""`vybe doctor` reads `claude --version` and `codex --version` and says when the installed
CLI is outside the versions vybe is tested with (fake executables print chosen versions)."""

from __future__ import annotations

import pytest


def fake(folder, name: str, printed: str) -> None:
    script = folder / name
    script.write_text(f"#!/bin/sh\necho '{printed}'\n")
    script.chmod(0o755)


def checks_of(vybe) -> dict:
    return {c["name"]: c for c in vybe.ok("doctor")["checks"]}


@pytest.mark.parametrize(
    ("claude", "codex", "ok", "note"),
    [
        ("2.1.197 (Claude Code)", "codex-cli 0.171.0", (True, True), (None, None)),
        ("2.1.400 (Claude Code)", "codex-cli 0.171.0", (True, True), ("newer", None)),
        ("2.0.9 (Claude Code)", "codex-cli 0.120.1", (False, False), ("older", "older")),
        ("Claude Code", "codex-cli 0.171.0", (False, True), ("no version", None)),
    ],
)
def test_doctor_names_an_agent_cli_outside_the_tested_versions(
    vybe, tmp_path, claude, codex, ok, note
):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake(bin_dir, "claude", claude)
    fake(bin_dir, "codex", codex)
    vybe.env["PATH"] = f"{bin_dir}:/usr/bin:/bin"
    found = checks_of(vybe)
    for target, wanted_ok, wanted_note in zip(("claude", "codex"), ok, note, strict=True):
        check = found[f"version_{target}"]
        assert check["ok"] is wanted_ok, check
        assert (wanted_note is None) == ("note" not in check["detail"]), check
        assert wanted_note is None or wanted_note in check["detail"]["note"], check


def test_doctor_checks_no_version_of_an_agent_that_is_not_installed(vybe):
    vybe.env["PATH"] = "/usr/bin:/bin"
    assert not [name for name in checks_of(vybe) if name.startswith("version_")]
