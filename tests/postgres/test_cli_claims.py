"""tests/cli/test_claims.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_claims import *  # noqa: F403
