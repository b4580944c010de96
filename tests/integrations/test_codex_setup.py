"""What Codex needs besides vybe's hooks.json entries, as `vybe doctor` and `vybe hook install
--codex` say it: hook trust (``codex exec`` skips untrusted hooks), the sandbox's writable
roots, the MCP entry's ``env`` and ``required`` (the config.toml shapes Codex 0.171 writes)."""

from __future__ import annotations

import pytest

TRUST = '[hooks.state."{path}:{event}:0:0"]\ntrusted_hash = "sha256:{n:064x}"\n'
EVENTS = ("session_start", "user_prompt_submit", "post_tool_use", "pre_compact", "stop")


@pytest.fixture
def codex(vybe, tmp_path):
    vybe.env.pop("TMPDIR", None)
    vybe.env["CODEX_HOME"] = str(tmp_path / "codex-home")
    return vybe


def setup_check(vybe) -> dict:
    checks = {c["name"]: c for c in vybe.ok("doctor")["checks"]}
    return checks["codex_setup"]


def config(vybe, text: str) -> None:
    (vybe.home / "codex-home" / "config.toml").write_text(text)


def trusted(vybe) -> str:
    hooks = vybe.home / "codex-home" / "hooks.json"
    return "".join(TRUST.format(path=hooks, event=e, n=n) for n, e in enumerate(EVENTS))


def roots(vybe) -> str:
    return f'[sandbox_workspace_write]\nwritable_roots = ["{vybe.home}"]\n'


@pytest.mark.no_store
@pytest.mark.sqlite_only("Codex's sandbox and MCP entry name the SQLite file (VYBE_DB_PATH)")
def test_doctor_right_after_install_reports_the_hooks_and_that_codex_has_not_trusted_them(codex):
    installed = codex.ok("hook", "install", "--codex")["codex"]
    assert any("Trust all" in p for p in installed["still_needed"])
    assert not codex.db_path.exists()
    checks = {c["name"]: c for c in codex.ok("doctor")["checks"]}
    assert checks["hooks_codex"]["ok"] and checks["store"]["ok"]
    assert not checks["codex_setup"]["ok"]
    assert "codex exec" in checks["codex_setup"]["detail"]["problems"][0]
    assert not codex.db_path.exists()


def test_trust_recorded_for_every_hook_and_the_store_in_the_writable_roots_is_ok(codex):
    codex.ok("hook", "install", "--codex")
    config(codex, trusted(codex) + roots(codex))
    assert setup_check(codex) == {
        "name": "codex_setup",
        "ok": True,
        "detail": {"config": [str(codex.home / "codex-home" / "config.toml")], "problems": []},
    }


def test_a_store_outside_the_sandboxs_writable_roots_is_named_with_the_fix(codex):
    codex.ok("hook", "install", "--codex")
    config(codex, trusted(codex))
    (problem,) = setup_check(codex)["detail"]["problems"]
    assert "writable_roots" in problem and str(codex.home) in problem
    config(codex, 'sandbox_mode = "danger-full-access"\n' + trusted(codex))
    assert setup_check(codex)["ok"]


@pytest.mark.sqlite_only("Codex's sandbox and MCP entry name the SQLite file (VYBE_DB_PATH)")
def test_the_mcp_entry_needs_the_hooks_store_and_required(codex):
    codex.ok("hook", "install", "--codex")
    entry = '[mcp_servers.vybe]\ncommand = "vybe"\nargs = ["mcp", "--agent", "codex"]\n'
    config(codex, trusted(codex) + roots(codex) + entry)
    problems = setup_check(codex)["detail"]["problems"]
    assert [("VYBE_DB_PATH" in p, "required = true" in p) for p in problems] == [
        (True, False),
        (False, True),
    ]
    fixed = entry + f'required = true\nenv = {{ VYBE_DB_PATH = "{codex.db_path}" }}\n'
    config(codex, trusted(codex) + roots(codex) + fixed)
    assert setup_check(codex)["ok"]


def test_without_vybes_codex_hooks_there_is_nothing_to_set_up(codex):
    check = setup_check(codex)
    assert check["ok"] and check["detail"]["note"] == "vybe's Codex hooks are not installed"
