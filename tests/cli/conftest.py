"""The clock a test moves instead of waiting for time to pass."""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture
def travel(vybe) -> Callable[[float], None]:
    """``travel(seconds)`` moves vybe's clock forward (or back, when negative) for every
    later command: through VYBE_CLOCK_OFFSET in the fixture's environment, which vybe reads
    on each clock reading, in-process as in a child process (``vybe.process``), beside the
    test switch VYBE_TEST_CLOCK=1 without which it is ignored."""
    moved = [0.0]

    def travel(seconds: float) -> None:
        moved[0] += seconds
        vybe.env.update(VYBE_CLOCK_OFFSET=str(moved[0]), VYBE_TEST_CLOCK="1")

    return travel
