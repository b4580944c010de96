"""tests/cli/test_concurrency.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_concurrency import *  # noqa: F403
