"""tests/cli/test_resume.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_resume import *  # noqa: F403

# The bytes of a SQLite file: on PostgreSQL, test_store.py checks that a peek writes nothing.
del test_peek_writes_nothing  # noqa: F821
