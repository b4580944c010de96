"""tests/cli/test_sessions.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_sessions import *  # noqa: F403
