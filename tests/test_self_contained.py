"""The repository stands on its own: nothing in it points at a file outside the checkout."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("src", "tests", "docs", "benchmarks", "demo", "bin", ".ci")
TOP_FILES = ("README.md", "Makefile", "pyproject.toml")
# Data copied byte for byte from elsewhere: their contents name the places they came from.
DATA = ROOT / "tests" / "fixtures" / "transcripts"

# A document named as a reference: a docs/ page or an upper-case name such as README.md.
DOCUMENT_NAME = re.compile(r"\bdocs/[\w/-]+\.md\b|(?<![\w/.-])[A-Z][A-Z0-9_-]+\.md\b")
# Names of files that agents and people keep in their own folders, which vybe reads.
CONVENTIONS = {"AGENTS.md", "CLAUDE.md", "SKILL.md", "TODO.md"}
OUTSIDE = re.compile(
    r"\.\./shared|/work/|\bshared/(data|reference|seeds)|\bseeds?[ _]0\d\d|"
    r"\breference/[\w-]+|hook-protocols|anchors-(compaction|continuity)|avibe-checkpoint"
    r"|python-stack\.md|real-clients\.md",
    re.IGNORECASE,
)


def _texts() -> list[Path]:
    files = [ROOT / name for name in TOP_FILES]
    for folder in SCANNED:
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file()]
    return [
        p
        for p in files
        if DATA not in p.parents and "__pycache__" not in p.parts and p != Path(__file__)
    ]


# Folders of the checkout that are not the repository's: virtualenvs, caches, installed CLIs
# (tens of thousands of files a walk would otherwise read through).
NOT_OURS = {".git", ".cache", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis"}


def _repository_markdown() -> set[str]:
    found = set()
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if d not in NOT_OURS and not d.startswith(".venv")]
        base = Path(folder)
        found |= {str((base / n).relative_to(ROOT)) for n in names if n.endswith(".md")}
    return found


def _resolves(name: str, known: set[str]) -> bool:
    name = name.lstrip("./")
    return any(path == name or path.endswith("/" + name) for path in known)


def test_no_file_names_a_place_outside_the_repository():
    found = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in _texts()
        for m in OUTSIDE.finditer(p.read_text(encoding="utf-8", errors="replace"))
    ]
    assert found == []


def test_every_markdown_file_named_exists_in_the_repository():
    known = _repository_markdown()
    missing = [
        f"{p.relative_to(ROOT)}: {name}"
        for p in _texts()
        for name in DOCUMENT_NAME.findall(p.read_text(encoding="utf-8", errors="replace"))
        if not _resolves(name, known) and name.rsplit("/", 1)[-1] not in CONVENTIONS
    ]
    assert missing == []


def test_the_checker_sees_an_outside_reference():
    """The patterns above find what they are for (a checker that finds nothing proves nothing)."""
    samples = ["(seed 000)", "../shared/data", "reference/hook-protocols", "/work/x"]
    assert all(OUTSIDE.search(s) for s in samples)
    assert DOCUMENT_NAME.findall("see DESIGN.md and docs/gone.md, not mind.md") == [
        "DESIGN.md",
        "docs/gone.md",
    ]
    known = _repository_markdown()
    assert not _resolves("DESIGN.md", known) and not _resolves("docs/gone.md", known)
    assert _resolves("docs/architecture.md", known)
