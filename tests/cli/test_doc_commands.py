"""Every vybe command line the README and docs/ show, run as written against a scratch store:
each is a command vybe knows with options it takes (never a usage error unless the page shows
one), and none fails inside vybe. The reference (docs/cli.md) is held by test_docs.py."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import Vybe

ROOT = Path(__file__).parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(?:sh|console|bash|shell)\n(.*?)```", re.S)
# Shown, not run here: they talk to a model (no network in the tests) or serve a protocol
# on stdin until it closes; their own tests run them against local servers.
NOT_RUN = {
    "chat": "talks to a model",
    "mcp": "serves MCP on stdin",
    "proxy": "serves HTTP",
    "ui": "serves HTTP",
}


def commands(page: Path) -> list[tuple[str, bool]]:
    """The page's vybe command lines (continued lines joined, the shell's comments and a
    ``[--flag]`` summary's brackets taken out), each with whether the page shows it refused
    as a usage error."""
    found = []
    for block in BLOCK.findall(page.read_text(encoding="utf-8")):
        lines = block.splitlines()
        for index, raw in enumerate(lines):
            line = raw.strip().removeprefix("$ ")
            if not line.startswith("vybe "):
                continue
            rest = iter(lines[index + 1 :])
            while line.endswith("\\") or not _whole(line):
                line = line.removesuffix("\\") + "\n" + next(rest).strip()
            shown_refused = any("USAGE_ERROR" in later for later in lines[index + 1 : index + 2])
            found.append((line.replace("[", "").replace("]", ""), shown_refused))
    return found


def _whole(line: str) -> bool:
    """Whether the shell would take the line as it stands (no quote left open)."""
    try:
        shlex.split(line, comments=True)
    except ValueError:
        return False
    return True


EVERY = [(page.name, line, refused) for page in PAGES for line, refused in commands(page)]


TASKS = ("MIGRATE", "DEPLOY", "TASK", "T")


@pytest.fixture(scope="module")
def tasks_made_once(store_kind, tmp_path_factory) -> tuple[Path, dict[str, str]] | None:
    """On SQLite, a store holding the tasks, made once for the file: each test starts from
    a copy of it instead of making them again (four commands, for each of ~170 tests)."""
    if store_kind != "sqlite":
        return None
    maker = Vybe(tmp_path_factory.mktemp("doc-tasks"))
    made = {name: maker.ok("task", "create", "--title", name)["task"]["id"] for name in TASKS}
    return maker.db_path, made


@pytest.fixture
def tasks(vybe, tasks_made_once, monkeypatch) -> dict[str, str]:
    """The shell variables the pages use, as ids of real tasks; Claude Code's folder in the
    scratch HOME, for `vybe setup` to find, which is also the working folder: a page's
    `--project` line writes ./.claude and ./.codex there, never into this repository."""
    (vybe.home / ".claude").mkdir()
    monkeypatch.chdir(vybe.home)
    if tasks_made_once is None:
        made = {name: vybe.ok("task", "create", "--title", name)["task"]["id"] for name in TASKS}
    else:
        source, made = tasks_made_once
        with closing(sqlite3.connect(source)) as read, closing(sqlite3.connect(vybe.db_path)) as to:
            read.backup(to)
    return {**made, "PWD": str(vybe.home)}


def test_the_pages_show_commands_to_run():
    assert len(EVERY) >= 30
    assert {page for page, _, _ in EVERY} >= {"README.md", "checkpoints.md", "integrations.md"}


@pytest.mark.parametrize(("page", "line", "refused"), EVERY, ids=[e[1][:60] for e in EVERY])
def test_every_command_a_page_shows_runs_as_written(vybe, tasks, page, line, refused):
    words = shlex.split(line, comments=True)[1:]
    if words[0] in NOT_RUN:
        pytest.skip(f"vybe {words[0]} {NOT_RUN[words[0]]}")
    words = [re.sub(r"\$(\w+)", lambda m: tasks.get(m.group(1), m.group(0)), w) for w in words]
    if " --format text" in f" {' '.join(words)}":
        status, text = vybe.text(*words)
        if not text.startswith("{"):  # the text a person reads, or an error's envelope
            assert status == 0 and not refused, (page, text)
            return
        envelope = json.loads(text)
    else:
        envelope = vybe(*words).envelope
    code = None if envelope["success"] else envelope["error_code"]
    assert code not in ("INTERNAL", *(() if refused else ("USAGE_ERROR",))), (page, envelope)
    assert not refused or code == "USAGE_ERROR", (page, envelope)


def test_a_pages_project_scope_install_writes_the_scratch_folder_not_this_repository(vybe, tasks):
    line = "vybe hook install --claude --codex --project"
    assert any(shown.startswith(line) for _, shown, _ in EVERY)
    repo_files = [ROOT / ".claude" / "settings.json", ROOT / ".codex" / "hooks.json"]
    before = [(p.stat().st_mtime_ns if p.exists() else None) for p in repo_files]
    vybe.ok(*shlex.split(line)[1:])
    assert (vybe.home / ".claude" / "settings.json").exists()
    assert (vybe.home / ".codex" / "hooks.json").exists()
    assert [(p.stat().st_mtime_ns if p.exists() else None) for p in repo_files] == before
