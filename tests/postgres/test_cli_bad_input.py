"""tests/cli/test_bad_input.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_bad_input import *  # noqa: F403
