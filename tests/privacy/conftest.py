"""The privacy tests' fixtures: the integrations' hook sender, for the entry paths."""

from tests.integrations.conftest import agent  # noqa: F401
