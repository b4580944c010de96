"""tests/cli/test_envelope.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_envelope import *  # noqa: F403
