"""What every benchmark here shares."""

from __future__ import annotations

import compileall
from pathlib import Path

import vybe


def compile_vybe() -> None:
    """Time vybe as installed, with bytecode: under PYTHONDONTWRITEBYTECODE every run would
    compile each module from source again (about 10 ms a run here)."""
    compileall.compile_dir(Path(vybe.__file__).parent, quiet=1)
