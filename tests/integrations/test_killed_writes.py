"""Every file vybe writes outside the store is written whole or not at all: `vybe init`,
`vybe setup` and `vybe setup --undo`, killed (SIGKILL) as they enter a system call that
writes a file, sets its mode, flushes it, renames or links it, leave each file as it was or
as the finished run leaves it, never a part; the hook registry stays readable (doctor's
hook_registry check ok), and an undo after a killed setup still puts every file back.

strace delivers the kill at the n-th call of each kind (its fault injection), n = 1, 2, …
until a run ends unkilled: every point between two such calls is reached, not a sample of
times (a kill at random times hit the empty registry in 1 round of 16)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import VYBE

STRACE = shutil.which("strace")
pytestmark = pytest.mark.skipif(STRACE is None, reason="needs strace (apt-get install strace)")
# Each call is counted apart (strace counts per call and per process).
CALLS = ("write", "fchmod", "fsync", "rename", "renameat", "renameat2", "link", "linkat")
# A person's own files, as the agents leave them: setup adds to each and undo takes it back.
MINE = '[{"hooks": [{"type": "command", "command": "mine"}]}]'
OWN = {
    ".claude/settings.json": f'{{"hooks": {{"Stop": {MINE}}}}}',
    ".claude.json": '{\n  "numStartups": 3\n}\n',
    ".codex/config.toml": 'model = "o3"\n',
}
AGENTS_FILES = (*OWN, ".codex/hooks.json")

Files = dict[str, bytes | None]


def snapshot(root: Path, names) -> Files:
    return {n: (root / n).read_bytes() if (root / n).exists() else None for n in names}


def restore(root: Path, files: Files) -> None:
    for name, data in files.items():
        path = root / name
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.chmod(0o600)


def killed_everywhere(
    vybe, argv: list[str], reset: Callable[[], None], check: Callable[[str], None]
) -> int:
    """Run ``argv`` from ``reset``'s state once per point (the n-th call of each of CALLS),
    killed there, and ``check`` what it left, named by the point; how many were killed."""
    killed = 0
    for call in CALLS:
        for n in itertools.count(1):
            reset()
            done = subprocess.run(
                [STRACE, "-f", "-qq", "-o", "/dev/null", "-e", f"trace={call}",
                 "-e", f"inject={call}:signal=SIGKILL:when={n}", VYBE, *argv],
                env=vybe.env, capture_output=True, check=False, timeout=120,
            )  # fmt: skip
            if done.returncode == 0:  # past the last such call: the run ended
                break
            assert done.returncode in (-9, 137), done.stderr.decode()[-2000:]
            killed += 1
            check(f"killed entering {call} #{n}")
    return killed


def registry_readable(vybe) -> None:
    checks = {c["name"]: c for c in vybe.ok("doctor")["checks"]}
    assert checks["hook_registry"]["ok"], checks["hook_registry"]


def whole(now: Files, old: Files, new: Files, point: str) -> None:
    for name, data in now.items():
        assert data in (old[name], new[name]), f"{name} {point}: {data!r}"


@pytest.fixture
def homes(vybe) -> Path:
    """A HOME with both agents' folders and the person's own files in them."""
    restore(vybe.home, {name: text.encode() for name, text in OWN.items()})
    vybe.env["PATH"] = "/usr/bin:/bin"  # neither agent's executable: found by its folder
    return vybe.home


def test_init_killed_anywhere_leaves_the_registry_and_config_old_or_new(vybe):
    names = ("config/hooks.json", "config/config.yaml")
    old = snapshot(vybe.home, names)
    argv = ["--agent", "newcomer", "init"]
    assert vybe.process(*argv).code == 0
    new = snapshot(vybe.home, names)
    assert new != old and None not in new.values()

    def check(point: str) -> None:
        whole(snapshot(vybe.home, names), old, new, point)
        cache = vybe.config_dir / "config-cache.json"
        if cache.exists():
            json.loads(cache.read_text())
        registry_readable(vybe)

    assert killed_everywhere(vybe, argv, lambda: restore(vybe.home, old), check) > len(CALLS)


def test_setup_killed_anywhere_leaves_each_file_old_or_new_and_undo_puts_all_back(vybe, homes):
    names = (*AGENTS_FILES, "config/setup.json", "config/hooks.json")
    old = snapshot(homes, names)
    vybe.ok("setup")
    new = snapshot(homes, names)
    assert all(new[n] != old[n] for n in names)

    def check(point: str) -> None:
        whole(snapshot(homes, names), old, new, point)
        registry_readable(vybe)
        vybe.ok("setup", "--undo")
        assert snapshot(homes, AGENTS_FILES) == {n: old[n] for n in AGENTS_FILES}, point

    assert killed_everywhere(vybe, ["setup"], lambda: restore(homes, old), check) > len(CALLS)


def test_undo_killed_anywhere_leaves_each_file_old_or_new_and_can_be_run_again(vybe, homes):
    names = (*AGENTS_FILES, "config/setup.json")
    original = snapshot(homes, names)
    vybe.ok("setup")
    set_up = snapshot(homes, names)

    def check(point: str) -> None:
        whole(snapshot(homes, names), set_up, original, point)
        vybe.ok("setup", "--undo")
        assert snapshot(homes, names) == original, point

    reset = lambda: restore(homes, set_up)  # noqa: E731
    assert killed_everywhere(vybe, ["setup", "--undo"], reset, check) > len(CALLS)
