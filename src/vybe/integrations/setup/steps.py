"""`vybe setup`: every step vybe may take to wire itself into the agents a person uses, in
one command, and its exact undo.

For Claude Code: the hooks and the status line in its settings.json (as `vybe hook install`
writes them) and vybe's MCP server in the user's ``~/.claude.json`` (``mcpServers.vybe``,
where `claude mcp add --scope user` puts it). For Codex: the hooks in its hooks.json, and
in its config.toml the MCP server (``[mcp_servers.vybe]``, with ``required = true`` and the
store in ``env`` when it is not the default one) and the store's folder among the
sandbox's ``writable_roots``. For Gemini CLI: the hooks in its user settings.json (named
``vybe``, timeouts in milliseconds; user hooks need no trust). What only the person can do
(trusting Codex's hooks in its TUI) is listed at the end with the exact action.

Every file is planned first (``--dry-run`` shows each change as a diff), then written
atomically. The bytes each file held before are kept in vybe's config folder
(``setup.json``): ``--undo`` puts them back byte for byte while the file is still what setup
wrote; a file the agent changed since keeps its changes, with vybe's entries taken out.
"""

from __future__ import annotations

import base64
import difflib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from vybe import config
from vybe.digest import sha256_hex
from vybe.errors import InvalidInput
from vybe.integrations.setup import codex_config, install, manifest, settings_file

AGENTS = ("claude", "codex", "gemini")
RECORD = "setup.json"
TRUST_STEP = "start `codex` once, open /hooks and choose Trust all (Codex skips untrusted hooks)"
PLUGIN = "vybe"  # the plugin's name in plugin/.claude-plugin/plugin.json
PLUGIN_LEFT = (
    "the vybe plugin brings Claude Code's hooks and MCP server: setup leaves Claude Code's"
    " settings alone (the status line, which a plugin cannot set: vybe setup --statusline)"
)
CODEX_PLUGIN_LEFT = (
    "the vybe plugin brings Codex's hooks and MCP server: setup leaves hooks.json and"
    " [mcp_servers.vybe] alone (the store's writable root, which a plugin cannot set, it adds)"
)


def claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~/.claude"))


def claude_state() -> Path:
    """The file Claude Code keeps its user-scope MCP servers in."""
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        return Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    return Path(os.path.expanduser("~/.claude.json"))


def claude_plugins() -> list[str]:
    """The vybe plugins Claude Code has installed and not disabled (``vybe@MARKETPLACE``), as
    `claude plugin install` records them: ``plugins/installed_plugins.json`` and the user
    settings' ``enabledPlugins``."""
    registry = settings_file.read(claude_home() / "plugins" / "installed_plugins.json")
    enabled = settings_file.read(claude_home() / "settings.json").get("enabledPlugins")
    enabled = enabled if isinstance(enabled, dict) else {}
    plugins = registry.get("plugins")
    return sorted(
        key
        for key in (plugins if isinstance(plugins, dict) else {})
        if key.split("@")[0] == PLUGIN and enabled.get(key) is not False
    )


def _registration(agent: str, plugins: list[str], hooks: dict, mcp: bool, way_out: str) -> dict:
    """Doctor check: which of the plugin and setup's entries (hooks, the MCP server)
    register vybe in ``agent``; both is a warning, each hook and tool would come twice."""
    by_setup = bool(hooks) or mcp
    active = {(True, True): "both", (True, False): "plugin", (False, True): "setup"}
    check: dict[str, Any] = {
        "name": f"{agent}_registration",
        "ok": not (plugins and by_setup),
        "active": active.get((bool(plugins), by_setup), "none"),
        "plugin": plugins,
        "setup": {"hooks": sorted(hooks), "mcp_server": mcp},
    }
    if plugins and by_setup:
        check["warning"] = f"vybe is registered twice in {way_out}"
    return check


def claude_registration() -> dict[str, Any]:
    """The plugin, or setup's hooks in the user settings and MCP server in ~/.claude.json."""
    hooks = install.inspect("claude", install.settings_path("claude", None))["events"]
    servers = settings_file.read(claude_state()).get("mcpServers")
    return _registration(
        "claude",
        claude_plugins(),
        hooks,
        isinstance(servers, dict) and "vybe" in servers,
        "Claude Code (plugin and setup): run `vybe setup --undo` to keep the plugin, or"
        " `claude plugin uninstall vybe` to keep setup's entries",
    )


def codex_plugins() -> list[str]:
    """The vybe plugins Codex has installed and not disabled (``vybe@MARKETPLACE``)."""
    table = codex_config.read(codex_config.config_path())
    return sorted(codex_config.plugins(table)) if "error" not in table else []


def codex_registration() -> dict[str, Any]:
    """The plugin, or setup's hooks in ~/.codex/hooks.json and ``[mcp_servers.vybe]`` in its
    config.toml."""
    hooks = install.inspect("codex", install.settings_path("codex", None))["events"]
    servers = codex_config.read(codex_config.config_path()).get("mcp_servers")
    plugins = codex_plugins()
    return _registration(
        "codex",
        plugins,
        hooks,
        isinstance(servers, dict) and "vybe" in servers,
        "Codex (plugin and setup): run `vybe setup --undo` to keep the plugin, or"
        f" `codex plugin remove {plugins[0] if plugins else PLUGIN}` to keep setup's entries",
    )


def found() -> list[str]:
    """The agents on this machine: an executable on PATH or a config folder of theirs."""
    homes = {
        "claude": claude_home(),
        "codex": codex_config.home(),
        "gemini": install.gemini_home(),
    }
    return [a for a in AGENTS if shutil.which(a) or homes[a].is_dir()]


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


class Change:
    """One file's planned text: what it held (None: no file) and what setup writes."""

    def __init__(self, path: Path, before: bytes | None, after: str, what: list[str]) -> None:
        self.path, self.before, self.after, self.what = path, before, after.encode(), what

    @property
    def changed(self) -> bool:
        return self.after != self.before

    def diff(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = self.after.decode("utf-8").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, str(self.path), str(self.path)))


def _status_line_change() -> Change:
    """Claude Code's settings.json with only vybe's status line offered."""
    path = Path(os.path.realpath(install.settings_path("claude", None)))
    before = _read(path)
    outcome = install.Outcome(path)
    document = install.offer_status_line(settings_file.read(path), outcome)
    return Change(
        path, before, settings_file.render(document), [f"status line: {outcome.status_line}"]
    )


def _hooks_change(target: str) -> Change:
    specs, _ = manifest.load()
    path = Path(os.path.realpath(install.settings_path(target, None)))
    before = _read(path)
    document = settings_file.read(path)
    outcome = install.Outcome(path)
    document = install.merge(document, target, specs[target], outcome)
    what = [f"hooks: {', '.join(outcome.installed + outcome.updated) or 'as they were'}"]
    if target == "claude":
        document = install.offer_status_line(document, outcome)
        what.append(f"status line: {outcome.status_line}")
    return Change(path, before, settings_file.render(document), what)


def store_env(settings: Any) -> dict[str, str]:
    """What an MCP server must be told of the store: nothing for the default file; the path
    or a URL without a password otherwise (a password stays out of agents' config files)."""
    if settings.db_url is not None:
        return {} if ":***@" in config.redact(settings.db_url) else {"VYBE_DB_URL": settings.db_url}
    if os.path.abspath(settings.db_path) == os.path.abspath(config.default_db_path()):
        return {}
    return {"VYBE_DB_PATH": os.path.abspath(settings.db_path)}


def _claude_mcp(settings: Any) -> Change:
    path = claude_state()
    before = _read(path)
    document = settings_file.read(path)
    entry: dict[str, Any] = {
        "type": "stdio",
        "command": config.vybe_argv()[0],
        "args": [*config.vybe_argv()[1:], "mcp", "--agent", "claude"],
    }
    env = store_env(settings)
    if env:
        entry["env"] = env
    servers = document.setdefault("mcpServers", {})
    state = "as it was" if servers.get("vybe") == entry else "added"
    servers["vybe"] = entry
    return Change(
        path,
        before,
        settings_file.render(document),
        [f"MCP server vybe (user scope): {state}"],
    )


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string is a JSON string


def _codex_config(settings: Any, project: Path, mcp: bool = True) -> tuple[Change, list[str]]:
    """config.toml with vybe's MCP server (unless not ``mcp``: the plugin brings it) and the
    store's writable root appended where their tables are missing; what only the person can
    change (a table of theirs)."""
    path = codex_config.config_path()
    before = _read(path)
    text = (before or b"").decode("utf-8")
    table = codex_config.read(path)
    if "error" in table:
        raise InvalidInput(table["error"], code="SETTINGS_UNREADABLE", context={"path": str(path)})
    blocks, what, manual = [], [], []
    argv = config.vybe_argv()
    ours = "vybe" in (table.get("mcp_servers") or {})
    if mcp and not ours:
        lines = [
            "[mcp_servers.vybe]",
            f"command = {_toml_string(argv[0])}",
            f"args = [{', '.join(map(_toml_string, [*argv[1:], 'mcp', '--agent', 'codex']))}]",
            "required = true",
        ]
        env = store_env(settings)
        if env:
            pairs = ", ".join(f"{k} = {_toml_string(v)}" for k, v in env.items())
            lines.append(f"env = {{ {pairs} }}")
        blocks.append("\n".join(lines))
        what.append("MCP server vybe: added")
    elif mcp:
        manual += [f"{path}: {p}" for p in codex_config.mcp_problems(table, settings.db_path)]
    if settings.db_url is None:
        blocked = codex_config.store_writable(table, os.path.abspath(settings.db_path), project)
        folder = os.path.dirname(os.path.abspath(settings.db_path))
        if (
            blocked
            and "sandbox_workspace_write" not in table
            and table.get("sandbox_mode") != (codex_config.READ_ONLY)
        ):
            blocks.append(f"[sandbox_workspace_write]\nwritable_roots = [{_toml_string(folder)}]")
            what.append(f"writable root: {folder}")
        elif blocked:
            manual.append(f"{path}: {blocked}")
    after = text
    if blocks:
        after = text + ("\n" if text and not text.endswith("\n") else "")
        after += ("\n" if text.strip() else "") + "\n\n".join(blocks) + "\n"
    return Change(path, before, after, what or ["as it was"]), manual


def plan(
    agents: list[str], settings: Any, project: Path, status_line: bool = False
) -> tuple[list[Change], list[str]]:
    """Each file setup writes for ``agents``, and what is left to the person. For Claude Code
    with the vybe plugin, or with ``status_line``: its status line only, when asked; for
    Codex with the vybe plugin: the store's writable root only."""
    changes, manual = [], []
    for agent in agents:
        if agent == "claude" and (status_line or claude_plugins()):
            changes.extend([_status_line_change()] if status_line else [])
        elif agent == "claude":
            changes.append(_hooks_change(agent))
            changes.append(_claude_mcp(settings))
        elif agent == "gemini":
            changes.append(_hooks_change(agent))
        else:
            plugin = bool(codex_plugins())
            changes.extend([] if plugin else [_hooks_change(agent)])
            toml, left = _codex_config(settings, project, mcp=not plugin)
            changes.append(toml)
            manual += left
    return changes, manual


def _record_path() -> Path:
    return Path(config.config_dir()) / RECORD


def _load_record() -> dict[str, Any]:
    try:
        return json.loads(_record_path().read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {"files": {}}
    except (OSError, ValueError) as exc:
        raise InvalidInput(
            f"{_record_path()} cannot be read ({exc})", code="SETTINGS_UNREADABLE"
        ) from None


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    config.write_whole(str(path), data, keep_mode=True)


def apply(changes: list[Change]) -> None:
    """Write each changed file; the first time setup touches one, keep what it held. The
    record is written first: setup killed before a file is written leaves a record whose
    undo finds that file as it was, never a file the record does not know."""
    record = _load_record()
    changed = [c for c in changes if c.changed]
    for change in changed:
        kept = record["files"].get(str(change.path))
        record["files"][str(change.path)] = {
            "before": kept["before"] if kept else _encode(change.before),
            "after_sha256": sha256_hex(change.after),
        }
    config.make_private_dir(config.config_dir())
    config.write_whole(str(_record_path()), json.dumps(record, indent=2))
    for change in changed:
        _write(change.path, change.after)


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def trust_pending() -> list[str]:
    """The events of vybe's Codex hooks (setup's, or the plugin's) Codex has not trusted yet."""
    path = install.settings_path("codex", None)
    document = settings_file.read(path)
    keys = codex_config.trust_keys(str(path), document, install.is_ours)
    table = codex_config.read(codex_config.config_path())
    if "error" in table:
        return []
    for key, root in codex_config.plugins(table).items():
        keys |= {f"{key} {e}": k for e, k in codex_config.plugin_trust_keys(key, root).items()}
    return codex_config.untrusted(table, keys)


def undo() -> list[dict[str, Any]]:
    """Each file setup wrote put back: its earlier bytes while it still holds what setup
    wrote (or removed, when setup made it); else vybe's entries taken out of it."""
    record = _load_record()
    done = []
    for name, entry in record["files"].items():
        path = Path(name)
        now = _read(path)
        before = None if entry["before"] is None else base64.b64decode(entry["before"])
        if now == before:  # never written (setup was stopped first), or put back already
            done.append({"path": name, "restored": "as it was before setup"})
        elif now is not None and sha256_hex(now) == entry["after_sha256"]:
            if before is None:
                path.unlink()
            else:
                _write(path, before)
            done.append({"path": name, "restored": "as it was before setup"})
        elif now is not None:
            _take_out(path, now)
            done.append({"path": name, "restored": "changed since setup: vybe's entries out"})
    _record_path().unlink(missing_ok=True)
    return done


def _take_out(path: Path, now: bytes) -> None:
    """vybe's entries out of a file the agent changed since setup wrote it."""
    if path.suffix == ".toml":
        _write(path, _without_vybe_tables(now.decode("utf-8")).encode())
        return
    document = settings_file.read(path)
    install.unmerge(document, install.Outcome(path))
    servers = document.get("mcpServers")
    if isinstance(servers, dict):
        servers.pop("vybe", None)
    _write(path, settings_file.render(document).encode())


def _without_vybe_tables(text: str) -> str:
    """config.toml without the ``[mcp_servers.vybe]`` table setup appended."""
    lines, kept, inside = text.splitlines(keepends=True), [], False
    for line in lines:
        head = line.strip()
        if head.startswith("["):
            inside = head == "[mcp_servers.vybe]"
        if not inside:
            kept.append(line)
    return "".join(kept)
