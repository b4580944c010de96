"""Build the wheel and sdist, check what they hold, install the wheel with its extras into a
fresh virtualenv (as pipx or uv tool would) and use it in a scratch HOME.

Run by `make install-smoke` (CI, after `make test`); it needs the package registry for the
build backend and the extras, so it is a script, not part of the offline suite. `make dist`
runs its checks alone on the wheel and sdist it built (`install_smoke.py --check dist`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "src"))
from vybe import DISTRIBUTION, __version__  # noqa: E402

WANTED = ("vybe/py.typed", "vybe/store/migrations/0001_foundation.sql", "LICENSE")


def run(*command: str, env: dict | None = None, cwd: Path | None = None) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    if done.returncode != 0:
        sys.exit(f"FAIL {' '.join(command)}\n{done.stdout}\n{done.stderr}")
    return done.stdout


def check_contents(names: list[str], what: str) -> None:
    missing = [w for w in WANTED if not any(n.endswith(w) for n in names)]
    postgres = [n for n in names if "/migrations/postgresql/" in n and n.endswith(".sql")]
    tests = [n for n in names if "/tests/" in f"/{n}" or n.startswith("tests/")]
    if missing or not postgres or tests:
        found = f"missing {missing}, postgres migrations {len(postgres)}, tests {tests[:3]}"
        sys.exit(f"FAIL {what}: {found}")
    print(f"PASS {what}: {len(names)} files, migrations, py.typed and LICENSE, no tests")


def check_built(dist: Path) -> tuple[Path, Path]:
    """The wheel and sdist in ``dist``, of this version, each holding what vybe needs."""
    stem = f"{DISTRIBUTION.replace('-', '_')}-{__version__}"
    wheel = dist / f"{stem}-py3-none-any.whl"
    sdist = dist / f"{stem}.tar.gz"
    for built in (wheel, sdist):
        if not built.is_file():
            sys.exit(f"FAIL {built.name} not built: {sorted(p.name for p in dist.iterdir())}")
    with zipfile.ZipFile(wheel) as archive:
        check_contents(archive.namelist(), wheel.name)
    with tarfile.open(sdist) as source:
        check_contents(source.getnames(), sdist.name)
    return wheel, sdist


def main() -> None:
    if sys.argv[1:2] == ["--check"]:
        check_built(Path(sys.argv[2]))
        return
    work = Path(tempfile.mkdtemp(prefix="vybe-install-"))
    try:
        smoke(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def smoke(work: Path) -> None:
    dist = work / "dist"
    builder = work / "builder"
    venv.create(builder, with_pip=True)
    run(str(builder / "bin/python"), "-m", "pip", "install", "--quiet", "build")
    run(str(builder / "bin/python"), "-m", "build", "--outdir", str(dist), str(ROOT))
    wheel, _ = check_built(dist)
    tool = work / "tool"
    venv.create(tool, with_pip=True)
    wanted = f"{DISTRIBUTION}[mcp,postgres] @ {wheel.as_uri()}"
    run(str(tool / "bin/python"), "-m", "pip", "install", "--quiet", wanted)
    home = work / "home"
    home.mkdir()
    env = {"PATH": f"{tool / 'bin'}:/usr/bin:/bin", "HOME": str(home)}
    vybe = str(tool / "bin/vybe")
    (home / ".claude").mkdir()  # Claude Code's folder, for `vybe setup` to find
    lines = (
        ["--version"],
        ["init", "--agent", "me"],  # as the README's tour starts: the agent named once
        ["doctor"],
        ["hook", "install", "--dry-run"],
        ["setup", "--dry-run"],
        ["setup"],
    )
    for line in lines:
        print("PASS vybe", " ".join(line), run(vybe, *line, env=env, cwd=home)[:120].strip())
    settings = home / ".claude" / "settings.json"
    assert "hook run claude" in settings.read_text(), settings.read_text()
    task = json.loads(run(vybe, "task", "create", "--title", "smoke", env=env, cwd=home))
    resumed = json.loads(run(vybe, "resume", "--peek", env=env, cwd=home))
    assert task["data"]["task"]["id"] == resumed["data"]["focus_task_id"], resumed
    print("PASS a short session: task create, resume")
    run(vybe, "setup", "--undo", env=env, cwd=home)
    assert not settings.exists() and not (home / ".claude.json").exists()
    print("PASS vybe setup --undo: the files setup made are gone")


if __name__ == "__main__":
    os.umask(0o022)
    main()
