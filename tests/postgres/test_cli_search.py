"""tests/cli/test_search.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_search import *  # noqa: F403
