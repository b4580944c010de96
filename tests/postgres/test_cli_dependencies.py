"""tests/cli/test_dependencies.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_dependencies import *  # noqa: F403
