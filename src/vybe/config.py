"""Settings: flags over VYBE_* variables over config.yaml over defaults.

Only top-level ``key: value`` scalars are read here, with no YAML library, because this
runs on every hook; richer sections (the models table) are read with PyYAML where used.
"""

from __future__ import annotations

import os

from vybe.actions.limits import AGENT_MAX
from vybe.errors import InvalidInput

TYPE_CHECKING = False  # typing costs 2 ms at start-up; annotations are strings
if TYPE_CHECKING:
    from typing import Any

DEFAULTS = {
    "default_agent": "default",
    "claim_lease": "15m",
    "busy_timeout_ms": "5000",
}


def config_dir() -> str:
    """A path string, not a Path: pathlib (with urllib.parse) costs every hook ~3 ms."""
    explicit = os.environ.get("VYBE_CONFIG_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "vybe")


def config_files() -> list[str]:
    """Searched in order; the first one found wins."""
    return [os.path.join(config_dir(), "config.yaml"), "/etc/vybe/config.yaml", "config.yaml"]


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def read_scalars(path: str) -> dict[str, str]:
    """The top-level ``key: value`` lines of a YAML file, comments and sections skipped."""
    values: dict[str, str] = {}
    with open(path, encoding="utf-8") as file:
        text = file.read()
    for raw in text.splitlines():
        if not raw or raw[0] in " \t#-":
            continue
        key, sep, value = raw.partition(":")
        value = value.split(" #", 1)[0].strip()
        if sep and value:
            values[key.strip()] = _unquote(value)
    return values


class Settings:
    """Where the store is and who acts: the resolved configuration of one run.

    A plain class, not a dataclass: every hook and command reads it, and the dataclasses
    module (with inspect) costs 5-7 ms at start-up, half a bare interpreter's start."""

    __slots__ = ("agent", "busy_timeout_ms", "claim_lease", "config_file", "db_path")

    def __init__(
        self,
        db_path: str,
        agent: str,
        claim_lease: str,
        busy_timeout_ms: int,
        config_file: str | None,
    ) -> None:
        self.db_path, self.agent, self.claim_lease = db_path, agent, claim_lease
        self.busy_timeout_ms, self.config_file = busy_timeout_ms, config_file


def load(agent: str | None = None, db_path: str | None = None) -> Settings:
    found = next((p for p in config_files() if os.path.isfile(p)), None)
    file_values = read_scalars(found) if found else {}

    def pick(key: str) -> str | None:
        return os.environ.get("VYBE_" + key.upper()) or file_values.get(key) or DEFAULTS.get(key)

    chosen_db = db_path or os.environ.get("VYBE_DB_PATH") or file_values.get("db_path")
    agent_name = agent or os.environ.get("VYBE_AGENT") or pick("default_agent") or "default"
    if not agent_name.strip() or len(agent_name) > AGENT_MAX:
        raise InvalidInput(
            f"the agent name must be 1 to {AGENT_MAX} characters",
            context={"field": "agent", "length": len(agent_name)},
        )
    try:
        busy = int(pick("busy_timeout_ms") or 5000)
    except ValueError:
        busy = 5000
    return Settings(
        db_path=os.path.expanduser(chosen_db)
        if chosen_db
        else os.path.join(config_dir(), "vybe.db"),
        agent=agent_name.strip().lower(),
        claim_lease=pick("claim_lease") or "15m",
        busy_timeout_ms=busy,
        config_file=found,
    )


def read_sections(path: str | None) -> dict[str, Any]:
    """The whole config file as a mapping, parsed with PyYAML (imported only here)."""
    if path is None or not os.path.isfile(path):
        return {}
    import yaml

    try:
        with open(path, encoding="utf-8") as file:
            data = yaml.safe_load(file.read())
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{path} is not valid YAML: {exc}") from None
    return data if isinstance(data, dict) else {}
