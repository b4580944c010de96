"""The global flags (``--agent``, ``--db-path``, …): where a command line gives them, and
how the hook path reads them. Standard library only: the hook path imports this for a hook
line that holds one (``vybe --agent x hook run claude``)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Global flags are accepted before or after the subcommand, as agents write them: each
# with the value's name, its environment variable and its help (``vybe --help``, ``schema``).
GLOBAL_FLAGS: tuple[dict[str, Any], ...] = (
    {"flags": ["--agent", "-a"], "name": "agent", "env": "VYBE_AGENT", "help": "who is acting"},
    {"flags": ["--db-path"], "name": "db_path", "env": "VYBE_DB_PATH", "help": "the SQLite store"},
    {
        "flags": ["--db-url"],
        "name": "db_url",
        "env": "VYBE_DB_URL",
        "help": "a PostgreSQL store (postgresql://user@host:port/db)",
    },
    {
        "flags": ["--request-id"],
        "name": "request_id",
        "env": "VYBE_REQUEST_ID",
        "help": "idempotency key",
    },
)
BY_FLAG = {flag: option["name"] for option in GLOBAL_FLAGS for flag in option["flags"]}


def split_globals(argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """The global flags (by their names in GLOBAL_FLAGS) and the other tokens; a
    flag without a value is a usage error."""
    found: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            rest.extend(argv[i:])
            break
        name, eq, value = token.partition("=")
        if name in BY_FLAG and (eq or name == token):
            if not eq:
                if i + 1 >= len(argv):
                    from vybe.errors import UsageError

                    raise UsageError(f"{name} needs a value")
                i += 1
                value = argv[i]
            if not value.strip():
                from vybe.errors import UsageError

                raise UsageError(f"{name} must not be empty")
            found[BY_FLAG[name]] = value
        else:
            rest.append(token)
        i += 1
    return found, rest


def as_hooks_read(flags: dict[str, str]) -> None:
    """Give the hook path the global flags as its environment: the hooks and the status line
    (and the housekeeping a session's end starts) read the agent and the store from
    VYBE_AGENT / VYBE_DB_URL / VYBE_DB_PATH. A flag's store replaces the environment's, as
    on every command line (a URL over a path). A request id names no hook call: unused."""
    if "agent" in flags:
        os.environ["VYBE_AGENT"] = flags["agent"]
    if "db_url" in flags or "db_path" in flags:
        for name, variable in (("db_url", "VYBE_DB_URL"), ("db_path", "VYBE_DB_PATH")):
            if name in flags:
                os.environ[variable] = flags[name]
            else:
                os.environ.pop(variable, None)
