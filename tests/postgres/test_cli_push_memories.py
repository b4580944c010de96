"""tests/cli/test_push_memories.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_push_memories import *  # noqa: F403
