"""tests/cli/test_idempotency.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_idempotency import *  # noqa: F403
