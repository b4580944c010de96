"""tests/cli/test_tasks.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_tasks import *  # noqa: F403
