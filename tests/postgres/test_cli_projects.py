"""tests/cli/test_projects.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_projects import *  # noqa: F403
