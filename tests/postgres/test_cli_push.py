"""tests/cli/test_push.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_push import *  # noqa: F403
