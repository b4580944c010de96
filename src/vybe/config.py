"""Settings: flags over VYBE_* variables over config.yaml over defaults.

config.yaml is YAML, parsed with PyYAML's ``safe_load``; a setting of the wrong type or
value is CONFIG_INVALID naming its key. Every hook and command reads the settings, and
PyYAML is no part of their start-up: the checked top-level settings are cached as JSON
(``config-cache.json`` beside the config), keyed by the file's identity, size and times, so
PyYAML is imported once after each edit of the file and never while it is unchanged.

The config files are the user's (``~/.config/vybe/config.yaml``) and the machine's
(``/etc/vybe/config.yaml``): never one in the working folder, where any project's own
``config.yaml`` (``db_path: app.db``) would take over the store and the person's prompts.
What vybe writes in its folder is the user's alone: the folder is 700 and files 600,
whatever the umask (``make_private_dir``, ``private_opener``). Every file vybe writes
outside the store (these, the agents' settings, what the hooks keep) is written whole or
not at all (``write_whole``).
"""

from __future__ import annotations

import os

from vybe import limits
from vybe.errors import InvalidInput
from vybe.limits import encodable
from vybe.text import from_os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Files vybe writes in its config folder besides the store (doctor checks their modes).
HOOKS_LOG = "hooks.log"
HOOK_MANIFEST = "hooks.json"
# The name the hook registry had before it moved where the seed puts it: doctor names a file
# still there (vybe reads only HOOK_MANIFEST).
OLD_HOOK_MANIFEST = "hook-manifest.json"
CONFIG_CACHE = "config-cache.json"
# What the cache holds, numbered: a cache an older vybe made (without settings this one
# reads, such as privacy and retention) is made again.
CACHE_FORM = 3

SECTIONS = ("models", "chat", "privacy", "retention")  # each a mapping when present


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


def command_line(agent: str | None, *words: str) -> str:
    """A shell command line that runs ``vybe WORDS`` as ``agent`` (a read that needs none:
    None), with the running vybe."""
    named = ["--agent", agent] if agent is not None else []
    return " ".join(shell_word(w) for w in [*vybe_argv(), *named, *words])


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


def write_whole(
    path: str,
    data: str | bytes,
    *,
    mode: int | None = 0o600,
    keep_mode: bool = False,
    exclusive: bool = False,
    dir_fd: int | None = None,
) -> bool:
    """Write ``path`` whole or not at all, the one way vybe writes a file outside the store:
    a temporary file in the same folder, written, flushed and fsynced, then renamed over
    ``path`` and the folder fsynced, so a kill at any instant leaves the old file or the
    new one, never a part (a temporary ``.NAME.*.tmp`` may be left beside it).

    ``mode``: the file's, whatever the umask (600: what vybe keeps is the user's alone;
    None: as the umask makes a new file); ``keep_mode``: an existing file keeps its own (an
    agent's settings file). ``exclusive``: only when there is no file yet (linked into
    place, never over one); whether it was written. ``dir_fd``: ``path`` is a name in that
    open folder (the chat agent's confined writes)."""
    folder = os.path.dirname(path) or "."
    temporary = os.path.join(
        folder, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    )
    if keep_mode:
        try:  # noqa: SIM105 (contextlib is kept off the hook path)
            mode = os.stat(path, dir_fd=dir_fd).st_mode & 0o777
        except FileNotFoundError:
            pass
    payload = data.encode("utf-8") if isinstance(data, str) else data
    made = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(temporary, made, 0o666 if mode is None else 0o600, dir_fd=dir_fd)
    try:
        try:
            _write_all(fd, payload)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            try:
                os.link(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except FileExistsError:
                return False
        else:
            os.replace(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    finally:
        try:  # noqa: SIM105 (contextlib is kept off the hook path)
            os.unlink(temporary, dir_fd=dir_fd)  # still there after a link or a failure
        except FileNotFoundError:
            pass
    _sync_folder(folder, dir_fd)
    return True


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view) :]


def _sync_folder(folder: str, dir_fd: int | None) -> None:
    """The rename made durable: the folder's entry flushed as the file's bytes were."""
    fd = os.open(folder, os.O_RDONLY, dir_fd=dir_fd)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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


def config_invalid(path: str, key: str, message: str) -> InvalidInput:
    return InvalidInput(
        f"{path}: {key} {message}",
        code="CONFIG_INVALID",
        context={"path": path, "field": key},
        suggested_action=f"correct {key} in {path}, or remove it",
    )


def parse(path: str) -> dict[str, Any]:
    """The whole config file as a mapping (an empty file is none), parsed with PyYAML
    (imported only here); not YAML, or not a mapping at the top, is CONFIG_INVALID."""
    import yaml

    try:
        data = yaml.safe_load(_read_text(path))
    except yaml.YAMLError as exc:
        raise InvalidInput(
            f"{path} is not valid YAML: {exc}",
            code="CONFIG_INVALID",
            context={"path": path},
            suggested_action="correct the file's YAML, or move it away",
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise config_invalid(path, "the file", "must be a mapping of settings (key: value)")
    return data


def _text(path: str, key: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise config_invalid(path, key, f"must be text, not {value!r}")
    return value


def _agent_setting(path: str, key: str, value: object) -> str:
    try:
        return limits.agent_name(_text(path, key, value), key)
    except InvalidInput as exc:
        raise config_invalid(path, key, exc.message) from None


def _lease_setting(path: str, key: str, value: object) -> str:
    try:
        return _lease(_text(path, key, value))
    except InvalidInput:
        raise config_invalid(
            path, key, f"must be a duration such as 15m or 1h (at most 24h), not {value!r}"
        ) from None


def _busy_setting(path: str, key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= BUSY_MAX:
        raise config_invalid(path, key, f"must be a whole number of milliseconds, 0..{BUSY_MAX}")
    return value


def _url_setting(path: str, key: str, value: object) -> str:
    """A server's URL, without a password: a config file is read by whoever reads the
    folder, and the password has libpq's own places (~/.pgpass or PGPASSFILE, a service
    file, PGPASSWORD); CONFIG_INVALID, the password not repeated, otherwise."""
    url = _text(path, key, value)
    if holds_password(url):
        raise InvalidInput(
            f"{path}: {key} holds a password",
            code="CONFIG_INVALID",
            context={"path": path, "field": key},
            suggested_action="remove it from the URL and keep it in ~/.pgpass (PGPASSFILE),"
            " a service file (PGSERVICEFILE) or PGPASSWORD",
        )
    return url


def holds_password(conninfo: str) -> bool:
    """Whether a connection string (a URL, or libpq's key=value form) names a password."""
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(as_url(conninfo))
    except InvalidInput:
        return "password" in conninfo  # not well formed: refuse what may hold one
    return parts.password is not None or "password" in parse_qs(parts.query)


# The top-level settings and how each is checked; anything else at the top is left alone
# (the sections are read where they are used: read_sections).
SCALARS = {
    "db_path": _text,
    "db_url": _url_setting,
    "default_agent": _agent_setting,
    "claim_lease": _lease_setting,
    "busy_timeout_ms": _busy_setting,
}
BUSY_MAX = 600_000


def checked(path: str, data: dict[str, Any]) -> dict[str, Any]:
    """The top-level settings of a parsed file, each checked, and its sections checked to be
    mappings; null is a setting left out."""
    for section in SECTIONS:
        if not isinstance(data.get(section) or {}, dict):
            wrong = data[section]
            raise config_invalid(path, section, f"must be a mapping of settings, not {wrong!r}")
    values = {
        key: check(path, key, data[key])
        for key, check in SCALARS.items()
        if data.get(key) is not None
    }
    values.update(redaction_settings(path, data.get("privacy") or {}))
    values.update(exclusion_settings(path, data.get("privacy") or {}))
    values.update(retention_settings(path, data.get("retention") or {}))
    return values


# What is never recorded (privacy.exclude_projects, privacy.exclude_tools): checked here,
# cached with the other settings, so a hook pays no more than it did.
EXCLUSIONS = ("exclude_projects", "exclude_tools")


def exclusion_settings(path: str, privacy: dict[str, Any]) -> dict[str, list[str]]:
    """``privacy.exclude_projects`` (folders or globs) and ``privacy.exclude_tools`` (tool
    names), each a list of text; a folder is made absolute (``~`` expanded)."""
    found: dict[str, list[str]] = {}
    for name in EXCLUSIONS:
        value = privacy.get(name)
        if value is None:
            continue
        key = f"privacy.{name}"
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise config_invalid(path, key, f"must be a list of text, not {value!r}")
        if name == "exclude_projects":
            value = [os.path.abspath(os.path.expanduser(v)) for v in value]
        found[name] = value
    return found


# How long each kind of row is kept (retention: messages / events / checkpoint_attempts),
# applied by `vybe maintain`; none set keeps everything.
RETAINED = ("messages", "events", "checkpoint_attempts")


# The checked settings read last, and the file and stamp they were read from: what a hook
# loaded already costs a later look a stat (read_settings keeps it here).
_LOADED: list[Any] = []


def loaded_values() -> dict[str, Any]:
    """The config file's checked settings, read again only when the file changed."""
    found = next((p for p in config_files() if os.path.isfile(p)), None)
    if found is None:
        return {}
    if _LOADED and _LOADED[0] == (found, _stamp(found)):
        loaded: dict[str, Any] = _LOADED[1]
        return loaded
    return read_settings(found)


def recording_off() -> bool:
    """``VYBE_RECORD=off``: nothing of this session is recorded."""
    return os.environ.get("VYBE_RECORD", "").strip().lower() == "off"


def excluded_tools() -> frozenset[str]:
    """The tools whose calls and outputs are not recorded (privacy.exclude_tools)."""
    return frozenset(loaded_values().get("exclude_tools", ()))


def excluded_project(folder: str) -> bool:
    """Whether ``folder`` is, or is inside, a folder privacy.exclude_projects names (a glob
    matches the folder or any folder it is in; fnmatch, and with it re, only then)."""
    path = os.path.abspath(folder)
    for pattern in loaded_values().get("exclude_projects", ()):
        if any(mark in pattern for mark in "*?["):
            from fnmatch import fnmatchcase

            if any(fnmatchcase(place, pattern) for place in _and_parents(path)):
                return True
        elif path == pattern or path.startswith(pattern.rstrip(os.sep) + os.sep):
            return True
    return False


def _and_parents(path: str) -> list[str]:
    places = [path]
    while os.path.dirname(places[-1]) != places[-1]:
        places.append(os.path.dirname(places[-1]))
    return places


def retention_settings(path: str, retention: dict[str, Any]) -> dict[str, dict[str, int]]:
    """``retention:``'s ages in seconds, by kind of row (none set: nothing)."""
    from vybe.clock import parse_duration

    ages: dict[str, int] = {}
    for name, value in retention.items():
        key = f"retention.{name}"
        if name not in RETAINED:
            raise config_invalid(path, key, f"is not one of {', '.join(RETAINED)}")
        if value is None:
            continue
        try:
            ages[name] = int(
                parse_duration(value if isinstance(value, str) else "").total_seconds()
            )
        except ValueError:
            raise config_invalid(
                path, key, f"must be a duration such as 90d or 12w, not {value!r}"
            ) from None
    return {"retention": ages} if ages else {}


def redaction_settings(path: str, privacy: Any) -> dict[str, Any]:
    """``privacy.redact`` (on unless false), ``privacy.patterns`` (regular expressions, or
    mappings of ``id`` and ``regex``) and ``privacy.allow`` (regular expressions a found
    secret is let through by), checked once as the file is parsed and cached with the
    other settings as ``redaction``; a pattern that does not compile is CONFIG_INVALID."""
    if not isinstance(privacy, dict):
        raise config_invalid(path, "privacy", f"must be a mapping of settings, not {privacy!r}")
    redact = privacy.get("redact", True)
    if not isinstance(redact, bool):
        raise config_invalid(path, "privacy.redact", f"must be true or false, not {redact!r}")
    patterns = [
        _pattern(path, f"privacy.patterns[{i}]", p)
        for i, p in enumerate(_listed(path, "privacy.patterns", privacy.get("patterns")))
    ]
    allow = [
        _pattern(path, f"privacy.allow[{i}]", p)["regex"]
        for i, p in enumerate(_listed(path, "privacy.allow", privacy.get("allow")))
    ]
    if redact and not patterns and not allow:
        return {}
    return {"redaction": {"redact": redact, "patterns": patterns, "allow": allow}}


def _listed(path: str, key: str, value: object) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise config_invalid(path, key, f"must be a list, not {value!r}")
    return value


def _pattern(path: str, key: str, value: object) -> dict[str, str]:
    """A user's pattern as ``{"id", "regex"}``, compiled once here to be sure it does."""
    import re

    entry = value if isinstance(value, dict) else {"id": "custom", "regex": value}
    regex, name = entry.get("regex"), entry.get("id", "custom")
    if not isinstance(regex, str) or not regex or not isinstance(name, str):
        raise config_invalid(path, key, f"must be a regular expression, not {value!r}")
    try:
        re.compile(regex)
    except re.error as exc:
        raise config_invalid(path, key, f"does not compile: {exc}") from None
    return {"id": name, "regex": regex}


def _stamp(path: str) -> list[int]:
    """What changes when the file does: its identity, size and times."""
    info = os.stat(path)
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def read_settings(path: str) -> dict[str, Any]:
    """The file's checked top-level settings: from the cache when it was made from this
    very file, else parsed (PyYAML) and the cache rewritten (best effort: a folder that
    cannot be written leaves every run to parse)."""
    from vybe import jsonio

    cache = os.path.join(config_dir(), CONFIG_CACHE)
    stamp = _stamp(path)
    try:
        with open(cache, encoding="utf-8") as file:
            cached = jsonio.loads(file.read())
        if cached["path"] == path and cached["stamp"] == stamp and cached["form"] == CACHE_FORM:
            _LOADED[:] = [(path, stamp), cached["settings"]]
            settings: dict[str, Any] = cached["settings"]
            return settings
    except (OSError, ValueError, KeyError, TypeError):
        pass
    values = checked(path, parse(path))
    _LOADED[:] = [(path, stamp), values]
    document = jsonio.dumps({"path": path, "stamp": stamp, "form": CACHE_FORM, "settings": values})
    try:  # noqa: SIM105 (contextlib is kept off the hook path)
        write_whole(cache, document)
    except OSError:  # best effort: a folder that cannot be written leaves each run to parse
        pass
    return values


def write_default_agent(agent: str) -> str:
    """Write ``default_agent: AGENT`` into the user's config.yaml (its line replaced, or
    added; the rest of the file kept as it is); the file's path."""
    import json

    name = limits.agent_name(agent)
    path = os.path.join(config_dir(), "config.yaml")
    line = f"default_agent: {json.dumps(name, ensure_ascii=False)}"  # YAML reads it as text
    lines = _read_text(path).splitlines() if os.path.isfile(path) else []
    kept = [
        raw
        for raw in lines
        if raw.partition(":")[0].strip() != "default_agent" or raw[:1] in " \t#"
    ]
    make_private_dir(config_dir())
    write_whole(path, "\n".join([*kept, line]) + "\n")
    return path


class Settings:
    """Where the store is and who acts: the resolved configuration of one run. ``agent`` is
    None when no agent is named (``--agent``, VYBE_AGENT, config ``default_agent``): a command
    that acts as one then refuses (AGENT_REQUIRED), never acts under a shared name.

    A plain class, not a dataclass: every hook and command reads it, and the dataclasses
    module (with inspect) is kept off the start-up paths."""

    __slots__ = (
        "agent",
        "busy_timeout_ms",
        "claim_lease",
        "config_file",
        "db_path",
        "db_url",
        "file_values",
    )

    def __init__(
        self,
        db_path: str,
        agent: str | None,
        claim_lease: str,
        busy_timeout_ms: int,
        config_file: str | None,
        db_url: str | None = None,
        file_values: dict[str, Any] | None = None,
    ) -> None:
        self.db_path, self.agent, self.claim_lease = db_path, agent, claim_lease
        self.busy_timeout_ms, self.config_file = busy_timeout_ms, config_file
        self.db_url = db_url
        self.file_values = file_values or {}  # the config file's checked settings

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
    if is_url(conninfo):
        return conninfo
    import shlex  # only here: with re and enum, milliseconds of every hook on a server
    from urllib.parse import urlencode

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
    file_values = read_settings(found) if found else {}

    url, chosen_db = _chosen_store((db_url, db_path), file_values)
    named = agent or _env("VYBE_AGENT") or file_values.get("default_agent")
    agent_name = limits.agent_name(named) if named else None  # no shared fallback name
    if chosen_db is not None and (not encodable(chosen_db) or "\x00" in chosen_db):
        raise InvalidInput("the store path is not valid UTF-8 text", context={"field": "db_path"})
    lease = _env("VYBE_CLAIM_LEASE")
    return Settings(
        db_path=os.path.expanduser(chosen_db) if chosen_db else default_db_path(),
        agent=agent_name,
        claim_lease=_lease(lease) if lease else file_values.get("claim_lease", "15m"),
        busy_timeout_ms=_busy(_env("VYBE_BUSY_TIMEOUT_MS"), file_values),
        config_file=found,
        db_url=as_url(url) if url is not None else None,
        file_values=file_values,
    )


def _env(name: str) -> str | None:
    """A VYBE_* variable as UTF-8 text (see ``from_os``); bytes that are not UTF-8 are kept
    as they came, to be refused where the value is checked."""
    value = os.environ.get(name)
    return (from_os(value) or value) if value else value


def _busy(text: str | None, file_values: dict[str, Any]) -> int:
    """VYBE_BUSY_TIMEOUT_MS over config's busy_timeout_ms over 5000; a bad one is named."""
    if text is None:
        busy: int = file_values.get("busy_timeout_ms", 5000)
        return busy
    if text.strip().isdigit() and int(text) <= BUSY_MAX:
        return int(text)
    raise InvalidInput(
        f"VYBE_BUSY_TIMEOUT_MS must be a whole number of milliseconds, 0..{BUSY_MAX}",
        context={"field": "VYBE_BUSY_TIMEOUT_MS", "value": text if encodable(text) else None},
    )


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
    """The whole config file as a mapping, its sections checked to be mappings."""
    if path is None or not os.path.isfile(path):
        return {}
    data = parse(path)
    checked(path, data)
    return data
