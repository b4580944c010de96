"""tests/cli/test_events.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_events import *  # noqa: F403
