"""tests/cli/test_maintain.py on PostgreSQL: the same tests, this folder's `vybe` fixture."""

from tests.cli.test_maintain import *  # noqa: F403

# SQLite's query planner: PostgreSQL's plans are checked in test_store.py.
del test_assignee_and_archive_lookups_use_their_partial_indexes  # noqa: F821
