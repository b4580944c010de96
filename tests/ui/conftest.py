"""What the viewer's tests share: a store a real `vybe` filled with what every page shows."""

from __future__ import annotations

from typing import Any

import pytest

INJECTED = "<script>alert(1)</script>"


@pytest.fixture
def filled(vybe: Any) -> Any:
    """A store with a session and its checkpoint, claimed and waiting tasks, memory, events."""
    said = (f"first {INJECTED}", "rename the parser", "then run the tests", "ship it")
    for words in said:
        detail = " ".join(f"keep step {n} of {words.split()[-1]} in mind" for n in range(30))
        vybe.ok("session", "say", "s1", f"{words}. {detail}")
    vybe.ok("session", "checkpoint", "s1", "--scripted")
    vybe.ok("session", "say", "s1", "after the checkpoint")
    migrate = vybe.task("migrate the schema", agent="alice")
    deploy = vybe.task(f"deploy {INJECTED}", agent="alice")
    vybe.ok("task", "depend", "--task-id", deploy, "--on", migrate, agent="alice")
    vybe.ok("task", "claim", "--task-id", migrate, "--lease", "10m", agent="bob")
    memo = ("-k", "style", "-v", "tabs not spaces", "--kind", "directive")
    vybe.ok("memory", "set", *memo, agent="alice")
    vybe.tasks = (migrate, deploy)
    return vybe
