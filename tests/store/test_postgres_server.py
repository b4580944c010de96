"""The suite's PostgreSQL server (tests/postgres/server.py) starts from a clone only its
owner can enter: as root it runs as `nobody`, who cannot enter root's home or a `mktemp -d`
folder (700), so it must not run the binaries from the clone's virtualenv nor keep its data
under the temporary folder it was given.

Part of `make test`: it starts a server of its own in a child process (about a second)."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.postgres import server

ROOT = Path(__file__).resolve().parents[2]
# pgserver's package, as installed in the clone's virtualenv
PGSERVER = Path(next(iter(importlib.util.find_spec("pgserver").submodule_search_locations)))
AS_ROOT = pytest.mark.skipif(
    os.geteuid() != 0, reason="only as root does the server run as another user"
)
# A child that finds pgserver where sys.path first says, starts the suite's server with
# its data where TMPDIR says, and prints where the binaries it ran were.
START = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.postgres.server import running
with running() as started:
    started.admin("SELECT 1")
    print(started.bin)
"""


def _private(path: Path) -> Path:
    path.mkdir(mode=0o700)
    path.chmod(0o700)
    return path


@AS_ROOT
def test_the_server_starts_from_a_clone_inside_a_folder_only_root_can_enter(tmp_path):
    home = _private(tmp_path / "home")  # root's home, or mktemp -d's folder
    site = home / "clone" / ".venv" / "site-packages"
    site.mkdir(parents=True)
    for shipped in ("pgserver", "pgserver.libs"):  # the package, and its wheel's libraries
        (site / shipped).symlink_to(PGSERVER.parent / shipped, target_is_directory=True)
    tmp = _private(home / "tmp")
    started = subprocess.run(
        [sys.executable, "-c", START, str(site)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp)},
        timeout=120,
    )
    assert started.returncode == 0, started.stderr[-3000:]
    ran = Path(started.stdout.strip())
    assert not ran.is_relative_to(home)  # the copy nobody can reach, not the clone's
    assert ran.is_relative_to(server.SHARED)


def _world_reachable(path: Path) -> bool:
    mode = path.stat().st_mode
    wanted = stat.S_IROTH | (stat.S_IXOTH if path.is_dir() or mode & stat.S_IXUSR else 0)
    return mode & wanted == wanted


@AS_ROOT
def test_workers_starting_at_once_share_one_complete_copy_of_the_binaries(tmp_path):
    """Three processes ask for the copy together: one is made, whole, readable by all."""
    shared = tmp_path / "shared"
    shared.mkdir()
    site = PGSERVER.parent
    ask = (
        "import sys; from pathlib import Path; from tests.postgres import server;"
        "print(server.copy_for_all(Path(sys.argv[1]), Path(sys.argv[2])))"
    )
    racing = [
        subprocess.Popen(
            [sys.executable, "-c", ask, str(site), str(shared)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(3)
    ]
    answers = {process.communicate(timeout=120)[0].strip() for process in racing}
    assert [process.returncode for process in racing] == [0, 0, 0]
    assert len(answers) == 1
    copy = Path(answers.pop())
    assert sorted(p.name for p in shared.iterdir()) == [copy.name]  # no staging left
    for part in server.SHIPPED:
        source = sorted(str(p.relative_to(site)) for p in (site / part).rglob("*"))
        assert sorted(str(p.relative_to(copy)) for p in (copy / part).rglob("*")) == source
    assert all(_world_reachable(p) for p in [copy, *copy.rglob("*")] if not p.is_symlink())
