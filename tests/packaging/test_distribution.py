"""vybe's distribution name (`vybe` on PyPI is another project's), said the same everywhere,
and the hints that name it when an optional extra is missing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import vybe

ROOT = Path(__file__).parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_distribution_is_not_named_vybe_and_vybe_knows_its_name():
    assert PROJECT["name"] == vybe.DISTRIBUTION != "vybe"


def test_every_install_line_of_the_docs_and_the_source_installs_from_a_clone():
    """`pip install 'vybe[mcp]'` would install someone else's package, and no release of the
    distribution's name exists yet: until the first, every line installs a clone (`.`)."""
    pattern = re.compile(r"(?:pip|pipx|uv tool|uv pip) install(?: --?[\w-]+)* ['\"]?([\w.][\w.-]*)")
    texts = [p.read_text(encoding="utf-8") for p in DOCS]
    texts += [p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py")]
    named = {m.group(1) for text in texts for m in pattern.finditer(text)}
    assert named == {"."}


def test_the_changelog_has_an_entry_for_this_version_below_unreleased():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, re.M)
    assert headings[:2] == ["Unreleased", vybe.__version__]


def test_the_license_file_is_the_license_pyproject_names():
    assert PROJECT["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def _without_site_packages(*args: str, home: Path) -> subprocess.CompletedProcess:
    """vybe from its source with no site-packages (`python -S`): mcp and psycopg absent."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-S", "-m", "vybe", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def test_a_missing_extra_is_missing_dependency_naming_the_distributions_extra(tmp_path):
    import json

    served = _without_site_packages("mcp", home=tmp_path)
    server = _without_site_packages(
        "--db-url", "postgresql://me@127.0.0.1:1/db", "doctor", home=tmp_path
    )
    for done, extra in ((served, "mcp"), (server, "postgres")):
        envelope = json.loads(done.stdout)
        assert done.returncode == 1, done.stderr
        assert envelope["error_code"] == "MISSING_DEPENDENCY"
        assert f"'{vybe.DISTRIBUTION}[{extra}]'" in envelope["suggested_action"]
        assert "Traceback" not in done.stderr
