"""Settings: flags over VYBE_* variables over config.yaml over defaults.

Only top-level ``key: value`` scalars are read here, with no YAML library, because this
runs on every hook; richer sections (the models table) are read with PyYAML where used.

The config files are the user's (``~/.config/vybe/config.yaml``) and the machine's
(``/etc/vybe/config.yaml``): never one in the working folder, where any project's own
``config.yaml`` (``db_path: app.db``) would take over the store and the person's prompts.
What vybe writes in its folder is the user's alone: the folder is 700 and files 600,
whatever the umask (``make_private_dir``, ``private_opener``).
"""

from __future__ import annotations

import os

from vybe import limits
from vybe.errors import InvalidInput
from vybe.limits import encodable
from vybe.text import from_os

TYPE_CHECKING = False  # no typing on the start-up paths (tests/cli/test_startup_imports.py)
if TYPE_CHECKING:
    from typing import Any

# Files vybe writes in its config folder besides the store (doctor checks their modes).
HOOKS_LOG = "hooks.log"
HOOK_MANIFEST = "hook-manifest.json"

SECTIONS = ("models", "chat")  # the config's sections: each a mapping when present

DEFAULTS = {
    "claim_lease": "15m",
    "busy_timeout_ms": "5000",
}


def config_dir() -> str:
    """A path string, not a Path: pathlib (with urllib.parse) is kept off the hook path."""
    explicit = os.environ.get("VYBE_CONFIG_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "vybe")


def default_db_path() -> str:
    """The store's file when nothing names one."""
    return os.path.join(config_dir(), "vybe.db")


def vybe_argv() -> list[str]:
    """The absolute path of the running vybe (or this Python with ``-m vybe``): what the hooks
    install, and what every command line handed to an agent starts with (a virtualenv's vybe
    is not on the agent's PATH)."""
    import sys

    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script) == "vybe" and os.path.isfile(script):
        return [os.path.abspath(script)]
    return [os.path.abspath(sys.executable), "-m", "vybe"]


_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def shell_word(word: str) -> str:
    """``word`` as one shell word (quoted here, not by shlex: a session start imports no
    regular expression)."""
    if word and set(word) <= _SHELL_SAFE:
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def command_line(agent: str, *words: str) -> str:
    """A shell command line that runs ``vybe WORDS`` as ``agent``, with the running vybe."""
    return " ".join(shell_word(w) for w in [*vybe_argv(), "--agent", agent, *words])


def config_files() -> list[str]:
    """Searched in order; the first one found wins. None is in the working folder."""
    return [os.path.join(config_dir(), "config.yaml"), "/etc/vybe/config.yaml"]


def make_private_dir(path: str) -> None:
    """Make ``path`` (and its parents) with the new folder 700; a folder that cannot be
    made is CONFIG_UNAVAILABLE (DISK_FULL on a full disk), not a traceback."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as exc:
        import errno

        from vybe.errors import DiskFull, VybeError

        if exc.errno == errno.ENOSPC:
            raise DiskFull(path) from None
        raise VybeError(
            f"cannot make the folder {path}: {exc.strerror}",
            code="CONFIG_UNAVAILABLE",
            context={"path": path},
            suggested_action="set VYBE_CONFIG_DIR (or XDG_CONFIG_HOME) to a writable folder",
        ) from None


def private_opener(path: str, flags: int) -> int:
    """``open(..., opener=private_opener)``: a file vybe creates is 600 whatever the umask."""
    return os.open(path, flags, 0o600)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = "is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else exc.strerror
        raise InvalidInput(
            f"the config file {path} {reason}" if reason else f"cannot read {path}",
            code="CONFIG_UNREADABLE",
            context={"path": path},
            suggested_action="save it as UTF-8 text, or move it away",
        ) from None


def read_scalars(path: str) -> dict[str, str]:
    """The top-level ``key: value`` lines of a YAML file, comments and sections skipped."""
    values: dict[str, str] = {}
    text = _read_text(path)
    for raw in text.splitlines():
        if not raw or raw[0] in " \t#-":
            continue
        key, sep, value = raw.partition(":")
        value = value.split(" #", 1)[0].strip()
        if sep and value:
            values[key.strip()] = _unquote(value)
    return values


def write_default_agent(agent: str) -> str:
    """Write ``default_agent: AGENT`` into the user's config.yaml (its line replaced, or
    added; the rest of the file kept as it is); the file's path."""
    import json

    name = limits.agent_name(agent)
    path = os.path.join(config_dir(), "config.yaml")
    value = name if set(name) <= _SHELL_SAFE - set(":") else json.dumps(name, ensure_ascii=False)
    line = f"default_agent: {value}"
    lines = _read_text(path).splitlines() if os.path.isfile(path) else []
    kept = [
        raw
        for raw in lines
        if raw.partition(":")[0].strip() != "default_agent" or raw[:1] in " \t#"
    ]
    make_private_dir(config_dir())
    draft = f"{path}.{os.getpid()}.tmp"  # replaced whole: never a half-written config
    with open(draft, "w", encoding="utf-8", opener=private_opener) as file:
        file.write("\n".join([*kept, line]) + "\n")
    os.replace(draft, path)
    return path


class Settings:
    """Where the store is and who acts: the resolved configuration of one run. ``agent`` is
    None when no agent is named (``--agent``, VYBE_AGENT, config ``default_agent``): a command
    that acts as one then refuses (AGENT_REQUIRED), never acts under a shared name.

    A plain class, not a dataclass: every hook and command reads it, and the dataclasses
    module (with inspect) is kept off the start-up paths."""

    __slots__ = ("agent", "busy_timeout_ms", "claim_lease", "config_file", "db_path", "db_url")

    def __init__(
        self,
        db_path: str,
        agent: str | None,
        claim_lease: str,
        busy_timeout_ms: int,
        config_file: str | None,
        db_url: str | None = None,
    ) -> None:
        self.db_path, self.agent, self.claim_lease = db_path, agent, claim_lease
        self.busy_timeout_ms, self.config_file = busy_timeout_ms, config_file
        self.db_url = db_url

    @property
    def location(self) -> str:
        """Where the store is: the PostgreSQL URL when one is set, else the SQLite file."""
        return self.db_url if self.db_url is not None else self.db_path


URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str) -> bool:
    """Whether a store location names a PostgreSQL server rather than a SQLite file."""
    return location.startswith(URL_SCHEMES)


def redact(url: str) -> str:
    """A connection string fit to print: the password replaced."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def as_url(conninfo: str) -> str:
    """A PostgreSQL connection string as a URL: libpq's ``key=value`` form (values quoted
    with ``'`` where they hold spaces) becomes query parameters. ``postgresql://`` alone
    leaves every setting to the PG* variables."""
    import shlex
    from urllib.parse import urlencode

    if is_url(conninfo):
        return conninfo

    pairs = [word.partition("=") for word in shlex.split(conninfo)]
    bad = [key for key, eq, _ in pairs if not eq or not key]
    if bad:
        raise InvalidInput(
            "a database URL is postgresql://user@host:port/db or libpq's key=value form",
            context={"field": "db_url"},
        )
    return "postgresql://?" + urlencode([(k, v) for k, _, v in pairs])


def _chosen_store(
    flags: tuple[str | None, str | None], file_values: dict[str, str]
) -> tuple[str | None, str | None]:
    """(url, path): the first level that names a store wins, a URL over a path within it:
    flags, then VYBE_DB_URL / VYBE_DB_PATH, then the config file."""
    levels = (
        flags,
        (_env("VYBE_DB_URL"), _env("VYBE_DB_PATH")),
        (file_values.get("db_url"), file_values.get("db_path")),
    )
    for url, path in levels:
        if url:
            return url, None
        if path:
            return None, path
    return None, None


def load(
    agent: str | None = None, db_path: str | None = None, db_url: str | None = None
) -> Settings:
    found = next((p for p in config_files() if os.path.isfile(p)), None)
    file_values = read_scalars(found) if found else {}

    def pick(key: str) -> str | None:
        return _env("VYBE_" + key.upper()) or file_values.get(key) or DEFAULTS.get(key)

    url, chosen_db = _chosen_store((db_url, db_path), file_values)
    named = agent or _env("VYBE_AGENT") or pick("default_agent")
    agent_name = limits.agent_name(named) if named else None  # no shared fallback name
    if chosen_db is not None and (not encodable(chosen_db) or "\x00" in chosen_db):
        raise InvalidInput("the store path is not valid UTF-8 text", context={"field": "db_path"})
    try:
        busy = min(max(int(pick("busy_timeout_ms") or 5000), 0), 600_000)
    except ValueError:
        busy = 5000
    return Settings(
        db_path=os.path.expanduser(chosen_db) if chosen_db else default_db_path(),
        agent=agent_name,
        claim_lease=_lease(pick("claim_lease") or "15m"),
        busy_timeout_ms=busy,
        config_file=found,
        db_url=as_url(url) if url is not None else None,
    )


def _env(name: str) -> str | None:
    """A VYBE_* variable as UTF-8 text (see ``from_os``); bytes that are not UTF-8 are kept
    as they came, to be refused where the value is checked."""
    value = os.environ.get(name)
    return (from_os(value) or value) if value else value


def _lease(text: str) -> str:
    """The default claim lease, checked here so a bad one is named where it was set."""
    from vybe.clock import bounded_lease, parse_duration

    try:
        bounded_lease(parse_duration(text))
    except ValueError as exc:
        raise InvalidInput(
            f"claim_lease (VYBE_CLAIM_LEASE or config.yaml): {exc}",
            context={"field": "claim_lease", "value": text if encodable(text) else None},
            suggested_action="set it to a duration such as 15m or 1h (at most 24h)",
        ) from None
    return text


def read_sections(path: str | None) -> dict[str, Any]:
    """The whole config file as a mapping, parsed with PyYAML (imported only here)."""
    if path is None or not os.path.isfile(path):
        return {}
    import yaml

    try:
        data = yaml.safe_load(_read_text(path))
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        return {}
    for section in SECTIONS:
        if not isinstance(data.get(section) or {}, dict):
            raise InvalidInput(
                f"{path}: {section} must be a mapping of settings, not {data[section]!r}",
                code="CONFIG_INVALID",
                context={"path": path, "field": section},
            )
    return data
