"""README's first screen, held to the code: one sentence on what vybe is, then `make demo` and
`make test` (run here: the demo for real, the test target as make would run it), an install
line that works from a clone, and a transcript of what an agent gets that vybe really prints.
Every other vybe command line the pages show is run by test_doc_commands.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.conftest import VYBE

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, re.S)
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# make with the virtualenv that runs this test, its install stamp taken as up to date.
VENV = Path(sys.executable).parent.parent
MAKE = ["make", "-C", str(ROOT), f"VENV={VENV}", "-o", f"{VENV}/.installed"]


def _section(heading: str) -> str:
    return README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_opens_with_one_sentence_on_what_vybe_is_and_the_problem_it_solves():
    title, opening = README.split("\n\n", 2)[:2]
    assert title == "# vybe"
    sentence = " ".join(opening.split())
    assert sentence.endswith(".") and sentence.count(". ") == 0, sentence
    assert "agents" in sentence and "memory" in sentence
    assert README.index(opening) < README.index("```")


def test_the_first_commands_are_make_demo_and_make_test():
    first = [line.split("#")[0].strip() for line in BLOCKS[0][1].splitlines()]
    assert first == ["make demo", "make test"]


def test_make_demo_runs_an_agents_session_end_to_end_on_a_fresh_store():
    done = subprocess.run(
        [*MAKE, "-s", "demo"], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Every prompt back byte for byte: True" in done.stdout


def test_make_test_runs_lint_mypy_and_the_whole_suite():
    done = subprocess.run([*MAKE, "-n", "test"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    for step in ("ruff check", "ruff format --check", "mypy", "pytest"):
        assert step in done.stdout, step


def test_the_install_line_installs_this_clone_with_extras_it_has():
    install = _section("Install")
    lines = [line for kind, block in BLOCKS if kind == "sh" for line in block.splitlines()]
    specs = [line.split()[2] for line in lines if line.startswith("pipx install")]
    assert specs == ["'.[mcp,postgres]'"]
    extras = specs[0].strip("'.[]").split(",")
    assert set(extras) <= set(PROJECT["optional-dependencies"])
    assert f"`{PROJECT['name']}`" in install and "waits for the first release" in install


def _hook(vybe, event: dict) -> str:
    """Claude Code's hook as Claude Code runs it; the context it adds, if any."""
    common = {"session_id": "s1", "cwd": str(vybe.home), "transcript_path": "/nowhere.jsonl"}
    stdin = json.dumps({**common, **event})
    command = [VYBE, "hook", "run", "claude"]
    done = subprocess.run(command, input=stdin, env=vybe.env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    added = json.loads(done.stdout or "{}").get("hookSpecificOutput", {})
    return added.get("additionalContext", "")


def _shown(text: str) -> list[str]:
    """The transcript's lines as vybe prints them: ids, times and the command's path apart."""
    shown = []
    for line in text.splitlines():
        if line == "…" or line.startswith("(Output"):
            continue
        line = re.sub(r"task_\d+_[0-9a-f]+", "TASK", line)
        shown.append(re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z", "TIME", line))
    return shown


def test_the_transcript_of_what_an_agent_gets_is_what_vybe_prints(vybe):
    brief, compacted = [block for kind, block in BLOCKS if kind == "text"][:2]
    vybe.ok("task", "create", "--title", "Port billing to Go", "--priority", "5")
    pinned = ["-k", "frozen", "-v", "payments/ is frozen until Friday", "--kind", "directive"]
    vybe.ok("memory", "set", *pinned, "--pin")
    started = _hook(vybe, {"hook_event_name": "SessionStart", "source": "startup"})
    said = "Never touch payments/ — frozen until Friday. Port billing to Go; keep ledger.py."
    for prompt in (said, "ok, go"):
        _hook(vybe, {"hook_event_name": "UserPromptSubmit", "prompt": prompt})
    restored = _hook(vybe, {"hook_event_name": "SessionStart", "source": "compact"})
    for text, shown in ((started, brief), (restored, compacted)):
        printed = _shown(text.replace(f"{VYBE} ", "vybe "))
        missing = [line for line in _shown(shown) if line not in printed]
        assert not missing, (missing, text)
