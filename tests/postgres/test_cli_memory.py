"""tests/cli/test_memory.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_memory import *  # noqa: F403
